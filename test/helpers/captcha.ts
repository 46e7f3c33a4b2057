import type { OpenedServices } from '../../src/services.ts';
import { createSite } from '../../src/captcha/sites.ts';
import { createKeyedUser } from './services.ts';
import { request, type JsonResponse } from './http.ts';
import { solveWork } from '../../src/captcha/work.ts';
import { envAnswer, envProgram } from '../../src/captcha/env-proof.ts';

/** A registered site with its one-time secret, owned by a fresh user. */
export async function createTestSite(
  services: OpenedServices,
  origins: string[] = ['https://shop.example'],
  security: { security_level?: 'low' | 'default' | 'high'; min_work_bits?: number | null } = {},
) {
  const { user } = await createKeyedUser(services, 'siteowner');
  const { site, secret } = await createSite(services.orm.em.fork(), user.id, { name: 'test site', origins, ...security });
  return { sitekey: site.sitekey, secret, ownerId: user.id };
}

/** Browser-like headers for challenge routes: the Origin plus what a real browser sends. */
export function browser(origin: string | undefined, ip?: string): Record<string, string> {
  const headers: Record<string, string> = {
    'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36',
    'Accept-Language': 'en-GB,en;q=0.9',
  };
  if (origin) headers.Origin = origin;
  if (ip) headers['X-Forwarded-For'] = ip;
  return headers;
}

export async function siteverify(base: string, body: Record<string, string>, path = '/api/v1/siteverify'): Promise<JsonResponse> {
  return request(`${base}${path}`, { method: 'POST', json: body });
}

/** Solves a work challenge natively (as a bot on a server would): the fields a proof carries. */
export function solveProof(work: { ticket: string; id: string; count: number; bits: number }): { work: string; solutions: string } {
  return { work: work.ticket, solutions: solveWork(work).solutions };
}

/**
 * The environment answer a real page would compute, worked out from the server's key: what
 * only a browser (or an emulator written for this service) can produce. Tests use it to
 * stand in for the widget.
 */
export function envAnswerFor(services: OpenedServices, workId: string): string {
  return String(envAnswer(envProgram(services.config.tokenKey!, workId)));
}
