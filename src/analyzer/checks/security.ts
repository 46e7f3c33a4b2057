/**
 * Security checks: HTTPS and its redirect, mixed content, server signature, unsafe
 * target=_blank links, exposed e-mail addresses, and the security response headers.
 */
import type { PageContext } from '../page.ts';
import { findEmailAddresses, hasVersionNumber } from '../scan.ts';
import { pageResources } from './performance.ts';
import { metaByName, relTokens } from './seo.ts';
import { defineCheck, type CheckDefinition } from './types.ts';

/** Plaintext e-mail addresses in the visible text and in mailto: links. */
export function findEmails(page: PageContext): string[] {
  const found = new Set<string>(findEmailAddresses(page.text));
  for (const el of page.$('a[href^="mailto:" i]').toArray()) {
    const address = safeDecode((el.attribs['href'] ?? '').slice(7).split('?')[0] ?? '').trim();
    if (address) found.add(address);
  }
  return [...found];
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The Content-Security-Policy header, or the content of a <meta http-equiv> one. */
function contentSecurityPolicy(page: PageContext): { source: string; policy: string } | undefined {
  const header = page.header('content-security-policy');
  if (header) return { source: 'header', policy: header };
  const meta = page
    .$('meta[http-equiv]')
    .toArray()
    .find((el) => (el.attribs['http-equiv'] ?? '').toLowerCase() === 'content-security-policy');
  return meta?.attribs['content'] ? { source: 'meta', policy: meta.attribs['content'] } : undefined;
}

/** The security checks. */
export const securityChecks: CheckDefinition[] = [
  defineCheck('https_encryption', (page) => {
    const passed = page.url.protocol === 'https:';
    return {
      passed,
      value: page.url.protocol.slice(0, -1),
      details: passed ? [] : ['The page is served over plain HTTP.'],
    };
  }),

  defineCheck('http_to_https_redirect', (page) => {
    if (page.url.protocol !== 'https:') {
      return { passed: false, value: null, details: ['The page is not served over HTTPS.'] };
    }
    if (page.requestedUrl.protocol === 'http:') return { passed: true, value: page.url.href, details: [] };
    const probe = page.aux?.httpVariant;
    if (!probe) return { passed: false, value: null, details: ['The http:// variant was not fetched.'] };
    const passed = probe.finalUrl?.startsWith('https://') ?? false;
    const detail = probe.error ?? `${probe.url} does not redirect to HTTPS (status ${probe.status}).`;
    return { passed, value: probe.finalUrl ?? null, details: passed ? [] : [detail] };
  }),

  defineCheck('mixed_content', (page) => {
    if (page.url.protocol !== 'https:') return { passed: true, value: 'not applicable (http page)', details: [] };
    const insecure = pageResources(page).filter((r) => r.url.protocol === 'http:');
    return {
      passed: insecure.length === 0,
      value: insecure.length,
      details: insecure.map((r) => page.describe(r.element, r.attribute)),
    };
  }),

  defineCheck('server_signature', (page) => {
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
  }),

  defineCheck('unsafe_cross_origin_links', (page) => {
    const unsafe = page
      .$('a[target][href]')
      .toArray()
      .filter((el) => {
        if ((el.attribs['target'] ?? '').toLowerCase() !== '_blank') return false;
        const url = page.resolve(el.attribs['href']);
        if (!url || url.origin === page.url.origin || !url.protocol.startsWith('http')) return false;
        const rel = relTokens(el);
        return !rel.includes('noopener') && !rel.includes('noreferrer');
      });
    return {
      passed: unsafe.length === 0,
      value: unsafe.length,
      details: unsafe.map((el) => page.describe(el, 'href')),
    };
  }),

  defineCheck('plaintext_email', (page) => {
    const emails = findEmails(page);
    return { passed: emails.length === 0, value: emails.length, details: emails };
  }),

  defineCheck('hsts', (page) => {
    const header = page.header('strict-transport-security');
    const maxAge = Number(/max-age\s*=\s*"?(\d+)/i.exec(header ?? '')?.[1] ?? 0);
    const passed = page.url.protocol === 'https:' && maxAge > 0;
    const details = passed
      ? []
      : [header ? `Strict-Transport-Security: ${header}` : 'No Strict-Transport-Security header.'];
    return { passed, value: header ?? null, details };
  }),

  defineCheck('content_security_policy', (page) => {
    const csp = contentSecurityPolicy(page);
    return {
      passed: csp !== undefined,
      value: csp ?? null,
      details: csp ? [] : ['No Content-Security-Policy header or meta tag.'],
    };
  }),

  defineCheck('content_type_options', (page) => {
    const header = page.header('x-content-type-options');
    const passed = (header ?? '').trim().toLowerCase() === 'nosniff';
    return { passed, value: header ?? null, details: passed ? [] : ['X-Content-Type-Options is not "nosniff".'] };
  }),

  defineCheck('frame_protection', (page) => {
    const xfo = (page.header('x-frame-options') ?? '').trim().toLowerCase();
    const csp = page.header('content-security-policy') ?? '';
    const passed = xfo === 'deny' || xfo === 'sameorigin' || /(^|;)\s*frame-ancestors\s/i.test(csp);
    const value = {
      xFrameOptions: page.header('x-frame-options') ?? null,
      frameAncestors: /frame-ancestors/i.test(csp),
    };
    return { passed, value, details: passed ? [] : ['Neither X-Frame-Options nor CSP frame-ancestors is set.'] };
  }),

  defineCheck('referrer_policy', (page) => {
    const header = page.header('referrer-policy');
    const meta = metaByName(page, 'referrer')[0]?.attribs['content'];
    const policy = header ?? meta;
    return {
      passed: Boolean(policy),
      value: policy ?? null,
      details: policy ? [] : ['No Referrer-Policy header or meta tag.'],
    };
  }),
];
