/** The answers the CI command reads, typed from the generated client (client/api.d.ts, from the OpenAPI document). */
import type { operations } from '../../client/api.d.ts';

type Ok<Op extends keyof operations> = operations[Op]['responses'] extends { 200: infer R } | { 201: infer R }
  ? R extends { content: { 'application/json': infer J } }
    ? J
    : never
  : never;

export type CreatedReport = Ok<'reports-create'>;
export type ReportAssertion = Ok<'reports-assert'>;
export type AuditRead = Ok<'audits-get'>;
export type AuditRuns = Ok<'audits-runs'>;
export type CheckList = Ok<'checks-list'>;
