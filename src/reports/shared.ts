import type { EntityManager } from '@mikro-orm/postgresql';
import { ReportSchema, type Report } from '../entities/report.entity.ts';
import { verifyPassword } from './passwords.ts';
import { SHARE_ID } from './share-address.ts';

export type SharedReport =
  { kind: 'visible'; report: Report } | { kind: 'password'; shareId: string } | { kind: 'missing' };

/**
 * What the public share page may show of a report, to anyone: public reports in full,
 * password reports only with the right password, private reports never (as if missing).
 * Share pages are addressed by the report's random `shareId`, never its numeric id, so
 * nobody can walk them to learn which reports exist.
 */
export async function loadSharedReport(
  em: EntityManager,
  shareIdText: string,
  password?: string,
): Promise<SharedReport> {
  if (!SHARE_ID.test(shareIdText)) return { kind: 'missing' };
  const report = await em.findOne(ReportSchema, { shareId: shareIdText });
  if (!report || report.privacy === 1) return { kind: 'missing' };
  if (report.privacy === 0) return { kind: 'visible', report };
  if (password !== undefined && (await verifyPassword(report.passwordHash, password)))
    return { kind: 'visible', report };
  return { kind: 'password', shareId: report.shareId };
}
