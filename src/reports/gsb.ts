/**
 * phpRank's `gsb` check: the page's URL looked up in Google Safe Browsing (Lookup API v4,
 * threatMatches:find). It needs an operator's API key, so it runs only when GSB_API_KEY is set;
 * otherwise reports leave it out. When the lookup itself fails the check is left out too (an
 * outage of Google's is no verdict on the page).
 */
import { gsbCheck as gsb } from '../analyzer/checks/gsb.ts';
import type { ResultEntry } from './results.ts';

export interface SafeBrowsingOptions {
  apiKey: string;
  /** `https://safebrowsing.googleapis.com`, or a local fake in tests. */
  baseUrl: string;
  timeoutMs?: number;
}

/** What `gsb` checks for (phpRank's list). */
const threatTypes = ['MALWARE', 'SOCIAL_ENGINEERING', 'UNWANTED_SOFTWARE', 'POTENTIALLY_HARMFUL_APPLICATION'];

interface Match {
  threatType?: unknown;
  platformType?: unknown;
}

/** A `gsb` entry for `url`, or undefined when Safe Browsing could not answer. */
export async function safeBrowsingCheck(url: string, opts: SafeBrowsingOptions): Promise<ResultEntry | undefined> {
  let matches: Match[];
  try {
    const res = await fetch(`${opts.baseUrl}/v4/threatMatches:find?key=${encodeURIComponent(opts.apiKey)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client: { clientId: 'auditcaptcha', clientVersion: '1.0.0' },
        threatInfo: {
          threatTypes,
          platformTypes: ['ANY_PLATFORM'],
          threatEntryTypes: ['URL'],
          threatEntries: [{ url }],
        },
      }),
      signal: AbortSignal.timeout(opts.timeoutMs ?? 5000),
    });
    if (!res.ok) return undefined;
    const body = (await res.json()) as { matches?: unknown };
    matches = Array.isArray(body?.matches) ? (body.matches as Match[]) : [];
  } catch {
    return undefined;
  }
  const found = [
    ...new Set(matches.map((m) => (typeof m.threatType === 'string' ? m.threatType : 'THREAT_TYPE_UNSPECIFIED'))),
  ];
  const details = found.map((t) => `Google Safe Browsing lists this URL for ${t}.`);
  return {
    passed: found.length === 0,
    importance: gsb.importance,
    value: found,
    ...(found.length ? { errors: { failed: null } } : {}),
    category: gsb.category,
    details,
  };
}
