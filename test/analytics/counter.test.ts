import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChallengeAnalytics, scoreLabel } from '../../src/analytics/counter.ts';
import { readAnalytics } from '../../src/analytics/read.ts';
import { createMetrics } from '../../src/metrics.ts';
import { createSite } from '../../src/captcha/sites.ts';
import { createKeyedUser, openTestServices, silentLog, type TestServices } from '../helpers/services.ts';

let services: TestServices;
beforeAll(async () => {
  services = await openTestServices();
});
afterAll(async () => {
  await services?.cleanup();
});

const rows = async (sitekey: string) =>
  services.orm.em
    .getConnection()
    .execute<Array<{ metric: string; label: string; count: number }>>(
      'select metric, label, count from challenge_stats where sitekey = ? order by metric, label',
      [sitekey],
    );

describe('challenge analytics', () => {
  it('counts in memory and adds each flush to the minute buckets, so instances sum up', async () => {
    const { user } = await createKeyedUser(services, 'analytics-a');
    const { site } = await createSite(services.orm.em.fork(), user.id, { name: 'A', origins: ['https://a.example'] });
    let now = Date.UTC(2026, 10, 26, 10, 0, 30);
    const metrics = createMetrics({ defaultMetrics: false });
    const one = new ChallengeAnalytics({
      orm: services.orm,
      log: silentLog,
      registry: metrics.registry,
      flushMs: 1000,
      retentionDays: 31,
      now: () => now,
    });
    const two = new ChallengeAnalytics({
      orm: services.orm,
      log: silentLog,
      flushMs: 1000,
      retentionDays: 31,
      now: () => now,
    });
    one.record(site.sitekey, 'issued', 'v2');
    one.record(site.sitekey, 'issued', 'v2');
    two.record(site.sitekey, 'issued', 'v2');
    one.record(site.sitekey, 'refused', 'wrong_answer');
    // The same counts on Prometheus (the first instance's registry), without sites or networks.
    const exposed = await metrics.registry.metrics();
    expect(exposed).toContain('challenge_events_total{metric="issued",label="v2"} 2');
    expect(exposed).toContain('challenge_events_total{metric="refused",label="wrong_answer"} 1');
    // Nothing is written before a flush: the request path does no I/O.
    expect(await rows(site.sitekey)).toEqual([]);
    await Promise.all([one.flush(), two.flush()]);
    expect(await rows(site.sitekey)).toEqual([
      { metric: 'issued', label: 'v2', count: 3 },
      { metric: 'refused', label: 'wrong_answer', count: 1 },
    ]);
    now += 60_000;
    one.record(site.sitekey, 'solved', 'v2');
    one.record(site.sitekey, 'verified', 'v3');
    one.record(site.sitekey, 'score', scoreLabel(0.9));
    one.record(site.sitekey, 'work', '18');
    one.record(site.sitekey, 'network', '203.0.113.0/24');
    await one.close();
    const view = await readAnalytics(services.orm.em.fork(), user.id, { range: 'hour', now });
    expect(view.timeline).toHaveLength(60);
    expect(view.issued).toEqual({ v1: 0, v2: 3, v3: 0 });
    expect(view.solved.v2).toBe(1);
    expect(view.verified.v3).toBe(1);
    expect(view.refused.wrong_answer).toBe(1);
    expect(view.scores.find((s) => s.score === '0.9')!.count).toBe(1);
    expect(view.work).toEqual([{ bits: 18, count: 1 }]);
    expect(view.networks).toEqual([{ network: '203.0.113.0/24', count: 1 }]);
    expect(view.timeline.reduce((n, p) => n + p.issued, 0)).toBe(3);
    // Another user's view of the same site is a 404, and their overall view is empty.
    const { user: other } = await createKeyedUser(services, 'analytics-b');
    await expect(
      readAnalytics(services.orm.em.fork(), other.id, { range: 'day', sitekey: site.sitekey, now }),
    ).rejects.toMatchObject({ code: 'ERR_NOT_FOUND' });
    const theirs = await readAnalytics(services.orm.em.fork(), other.id, { range: 'day', now });
    expect(theirs.issued).toEqual({ v1: 0, v2: 0, v3: 0 });
  });

  it('deletes buckets past the retention', async () => {
    const { user } = await createKeyedUser(services, 'analytics-c');
    const { site } = await createSite(services.orm.em.fork(), user.id, { name: 'C', origins: ['https://c.example'] });
    let now = Date.UTC(2026, 0, 1);
    const counter = new ChallengeAnalytics({
      orm: services.orm,
      log: silentLog,
      flushMs: 1000,
      retentionDays: 2,
      now: () => now,
    });
    counter.record(site.sitekey, 'issued', 'v1');
    await counter.flush();
    expect(await rows(site.sitekey)).toHaveLength(1);
    now += 3 * 86_400_000;
    await counter.flush();
    expect(await rows(site.sitekey)).toEqual([]);
  });

  it('scores by tenth', () => {
    expect([0, 0.05, 0.5, 0.99, 1].map(scoreLabel)).toEqual(['0.0', '0.0', '0.5', '0.9', '0.9']);
  });
});
