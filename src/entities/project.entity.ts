import type { InferEntity } from '@mikro-orm/core';
import { defineEntity, p } from '@mikro-orm/core';
import { UserSchema } from './user.entity.ts';

/**
 * A user's project: the host of its reports' final URLs. The row exists while it has
 * reports and carries running aggregates, kept in the same transaction as every report
 * write (src/reports/projects.ts), so listing projects and counting list totals never
 * scans the reports.
 */
export const ProjectSchema = defineEntity({
  name: 'Project',
  tableName: 'projects',
  uniques: [{ properties: ['user', 'name'] }],
  indexes: [
    { properties: ['user', 'createdAt', 'id'] },
    {
      name: 'projects_name_trgm',
      expression: 'create index "projects_name_trgm" on "projects" using gin ("name" gin_trgm_ops)',
    },
  ],
  properties: {
    id: p.integer().primary().autoincrement(),
    user: p.manyToOne(UserSchema).deleteRule('cascade'),
    name: p.string().length(253),
    reportsCount: p.integer().default(0),
    scoreSum: p.bigint('number').default(0),
    goodCount: p.integer().default(0),
    decentCount: p.integer().default(0),
    badCount: p.integer().default(0),
    /** Creation time of the project's earliest report. */
    createdAt: p.datetime(),
  },
});

export type Project = InferEntity<typeof ProjectSchema>;
