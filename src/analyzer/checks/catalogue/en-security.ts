/** English words for the security checks. */
import type { SectionTexts } from './texts.ts';

type SecurityId =
  | 'https_encryption'
  | 'gsb'
  | 'http_to_https_redirect'
  | 'mixed_content'
  | 'server_signature'
  | 'unsafe_cross_origin_links'
  | 'plaintext_email'
  | 'hsts'
  | 'content_security_policy'
  | 'content_type_options'
  | 'frame_protection'
  | 'referrer_policy';

/** The security checks in English. */
export const enSecurity: SectionTexts<SecurityId> = {
  https_encryption: {
    title: 'HTTPS',
    description:
      'The page is served over HTTPS. Without it anyone on the network can read and change the page, and browsers mark it "Not secure".',
    fix: 'Install a TLS certificate (Let’s Encrypt issues them free) and serve the site over https://.',
  },
  gsb: {
    title: 'Safe Browsing',
    description:
      'Google Safe Browsing does not list the address for malware, phishing or unwanted software. Listed sites get a full-page warning in browsers.',
    fix: 'Remove the malicious content, secure the site, then request a review in Google Search Console.',
    learnMore: 'https://developers.google.com/search/docs/monitor-debug/security/malware',
  },
  http_to_https_redirect: {
    title: 'HTTP redirects to HTTPS',
    description:
      'The http:// address redirects to https://, so visitors and links using the old address end up on the secure page.',
    fix: 'Redirect every http:// request permanently (301) to the same path on https://.',
  },
  mixed_content: {
    title: 'Mixed content',
    description:
      'An HTTPS page loads nothing over plain HTTP. Browsers block or flag such resources, which breaks the page or its padlock.',
    fix: 'Load every script, style, image and frame over https:// (or from the same origin).',
    counted: { one: 'insecure resource', other: 'insecure resources' },
    learnMore: 'https://developer.mozilla.org/en-US/docs/Web/Security/Mixed_content',
  },
  server_signature: {
    title: 'Server version hidden',
    description:
      'Response headers do not reveal software versions (Server, X-Powered-By, X-AspNet-Version). Version numbers help attackers pick known exploits.',
    fix: 'Turn off version tokens in the server (for example ServerTokens Prod, server_tokens off, expose_php Off).',
  },
  unsafe_cross_origin_links: {
    title: 'Safe external links',
    description:
      'Links that open another site in a new tab (target="_blank") carry rel="noopener" or "noreferrer", so the other page cannot control this one.',
    fix: 'Add rel="noopener noreferrer" to links with target="_blank" that point to other sites.',
    counted: { one: 'unsafe link', other: 'unsafe links' },
    learnMore: 'https://developer.mozilla.org/en-US/docs/Web/HTML/Attributes/rel/noopener',
  },
  plaintext_email: {
    title: 'E-mail addresses in the page',
    description: 'E-mail addresses written in the page’s text or mailto: links. Harvesters collect them for spam.',
    fix: 'Replace the addresses with a contact form, or obfuscate them.',
    counted: { one: 'address', other: 'addresses' },
  },
  hsts: {
    title: 'Strict Transport Security',
    description:
      'The HTTPS response sends Strict-Transport-Security with a max-age, so browsers never contact the site over plain HTTP again.',
    fix: 'Send Strict-Transport-Security: max-age=31536000 (add includeSubDomains when every subdomain has HTTPS).',
    learnMore: 'https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Strict-Transport-Security',
  },
  content_security_policy: {
    title: 'Content Security Policy',
    description:
      'The page sets a Content-Security-Policy (header or meta tag), which limits where scripts and other resources may come from and blunts cross-site scripting.',
    fix: "Send a Content-Security-Policy header, starting with a policy such as default-src 'self' and widening it only where the page needs it.",
    fields: { source: 'Set by', policy: 'Policy' },
    learnMore: 'https://developer.mozilla.org/en-US/docs/Web/HTTP/CSP',
  },
  content_type_options: {
    title: 'No MIME sniffing',
    description:
      'The response sends X-Content-Type-Options: nosniff, so browsers do not guess content types and run uploaded files as scripts.',
    fix: 'Send X-Content-Type-Options: nosniff on every response.',
    learnMore: 'https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/X-Content-Type-Options',
  },
  frame_protection: {
    title: 'Frame protection',
    description:
      'The page says who may embed it, with X-Frame-Options or CSP frame-ancestors. Otherwise another site can frame it and trick people into clicking (clickjacking).',
    fix: "Send Content-Security-Policy: frame-ancestors 'self' (or X-Frame-Options: SAMEORIGIN).",
    fields: { xFrameOptions: 'X-Frame-Options', frameAncestors: 'CSP frame-ancestors' },
    learnMore: 'https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Content-Security-Policy/frame-ancestors',
  },
  referrer_policy: {
    title: 'Referrer policy',
    description:
      'The page sets a Referrer-Policy, which controls how much of its address is sent to the sites it links to.',
    fix: 'Send Referrer-Policy: strict-origin-when-cross-origin (or stricter).',
    learnMore: 'https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Referrer-Policy',
  },
};
