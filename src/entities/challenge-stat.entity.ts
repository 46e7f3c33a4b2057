import { defineEntity, p } from '@mikro-orm/core';

/**
 * One minute's count of one challenge event for one sitekey (src/analytics): `metric` is
 * what happened (issued, solved, verified, refused, work, score, network) and `label` its
 * detail (the kind, the refusal reason, the work bits, the score decile, the network). Rows
 * are added to in one statement per flush and pruned past ANALYTICS_RETENTION_DAYS; read
 * with raw SQL (src/analytics/read.ts).
 */
export const ChallengeStatSchema = defineEntity({
  name: 'ChallengeStat',
  tableName: 'challenge_stats',
  indexes: [{ properties: ['sitekey', 'bucket'] }],
  properties: {
    bucket: p.datetime().primary(),
    sitekey: p.string().length(64).primary(),
    metric: p.string().length(16).primary(),
    label: p.string().length(64).primary(),
    count: p.integer(),
  },
});
