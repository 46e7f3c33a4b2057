/** The `server_signature` check (security): Server version hidden. */
import { hasVersionNumber } from '../../scan.ts';
import * as formats from '../catalogue/formats.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'server_signature',
  category: 'security',
  importance: 'medium',
  source: 'page',
  order: 3050,
  rendered: false,
  texts: {
    en: {
      title: 'Server version hidden',
      description:
        'Response headers do not reveal software versions (Server, X-Powered-By, X-AspNet-Version). Version numbers help attackers pick known exploits.',
      fix: 'Turn off version tokens in the server (for example ServerTokens Prod, server_tokens off, expose_php Off).',
    },
  },
  value: formats.text,
  run(page) {
    const details: string[] = [];
    for (const name of ['server', 'x-powered-by']) {
      const value = page.header(name);
      if (value && hasVersionNumber(value)) details.push(`${name}: ${value}`);
    }
    for (const name of ['x-aspnet-version', 'x-aspnetmvc-version']) {
      const value = page.header(name);
      if (value) details.push(`${name}: ${value}`);
    }
    return { passed: details.length === 0, value: page.header('server') ?? null, details };
  },
} satisfies PageCheck;
