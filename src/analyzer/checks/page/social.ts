/** The `social` check (miscellaneous): Social profiles. */
import * as formats from '../catalogue/formats.ts';
import type { PageCheck } from '../types.ts';

/** Registrable domains of social networks, to the network's name. */
const socialNetworks: Readonly<Record<string, string>> = {
  'facebook.com': 'Facebook',
  'fb.com': 'Facebook',
  'twitter.com': 'X (Twitter)',
  'x.com': 'X (Twitter)',
  'instagram.com': 'Instagram',
  'linkedin.com': 'LinkedIn',
  'youtube.com': 'YouTube',
  'youtu.be': 'YouTube',
  'tiktok.com': 'TikTok',
  'pinterest.com': 'Pinterest',
  'reddit.com': 'Reddit',
  'tumblr.com': 'Tumblr',
  'threads.net': 'Threads',
  'bsky.app': 'Bluesky',
  'mastodon.social': 'Mastodon',
  'vk.com': 'VK',
  't.me': 'Telegram',
  'wa.me': 'WhatsApp',
  'whatsapp.com': 'WhatsApp',
  'snapchat.com': 'Snapchat',
  'discord.gg': 'Discord',
  'twitch.tv': 'Twitch',
  'github.com': 'GitHub',
  'medium.com': 'Medium',
  'vimeo.com': 'Vimeo',
  'flickr.com': 'Flickr',
  'dribbble.com': 'Dribbble',
  'behance.net': 'Behance',
};

export default {
  id: 'social',
  category: 'miscellaneous',
  importance: 'low',
  source: 'page',
  order: 4060,
  rendered: true,
  texts: {
    en: {
      title: 'Social profiles',
      description:
        'The page links to the site’s profiles on social networks, which people use to follow and verify it.',
      fix: 'Link your social network profiles, for example in the footer.',
    },
  },
  value: formats.list,
  run(page) {
    const networks = new Set<string>();
    for (const el of page.$('a[href]').toArray()) {
      const url = page.resolve(el.attribs['href']);
      if (!url || !url.protocol.startsWith('http')) continue;
      const domain = page.registrableDomain(url.hostname) ?? url.hostname;
      const network = socialNetworks[url.hostname.replace(/^www\./, '')] ?? socialNetworks[domain];
      if (network) networks.add(network);
    }
    const passed = networks.size > 0;
    return { passed, value: [...networks], details: passed ? [] : ['No links to social networks.'] };
  },
} satisfies PageCheck;
