import { defineEntity, p } from '@mikro-orm/core';
import { ReportSchema } from './report.entity.ts';

/** One run's lab figures of a report measured several times (src/reports/lab-samples.ts); null where not recorded. */
export const LabSampleSchema = defineEntity({
  name: 'LabSample',
  tableName: 'lab_samples',
  properties: {
    id: p.integer().primary().autoincrement(),
    report: p.manyToOne(ReportSchema).deleteRule('cascade'),
    /** 0-based, in the order the runs were made. */
    run: p.smallint(),
    fcp: p.float().nullable(),
    lcp: p.float().nullable(),
    tbt: p.float().nullable(),
    cls: p.float().nullable(),
    score: p.float().nullable(),
    bytes: p.float().nullable(),
  },
});
