import type { EntityManager } from '@mikro-orm/postgresql';
import { ReportSchema, type Report } from '../entities/report.entity.ts';
import { verifyPassword } from './passwords.ts';
import { parseId } from '../ids.ts';

export type SharedReport =
  | { kind: 'visible'; report: Report }
  | { kind: 'password'; id: number }
  | { kind: 'missing' };

/**
 * What the public share page may show of a report, to anyone: public reports in full,
 * password reports only with the right password, private reports never (as if missing).
 */
export async function loadSharedReport(em: EntityManager, idText: string, password?: string): Promise<SharedReport> {
  const id = parseId(idText);
  if (id === undefined) return { kind: 'missing' };
  const report = await em.findOne(ReportSchema, { id });
  if (!report || report.privacy === 1) return { kind: 'missing' };
  if (report.privacy === 0) return { kind: 'visible', report };
  if (password !== undefined && (await verifyPassword(report.passwordHash, password))) return { kind: 'visible', report };
  return { kind: 'password', id: report.id };
}
