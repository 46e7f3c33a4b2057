import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Options } from '@mikro-orm/postgresql';
import { defineConfig } from './mikro-orm.ts';
import {
  ApiKeySchema,
  ChallengeStatSchema,
  ConsoleSessionSchema,
  AuditPageSchema,
  AuditRunSchema,
  AuditSchema,
  ProjectSchema,
  ReportSchema,
  SiteSchema,
  GatewayHostSchema,
  UserSchema,
  WebhookDeliverySchema,
  WebhookSchema,
  LabSampleSchema,
  AuditBudgetSchema,
} from '../entities/index.ts';

/** The project root (where package.json and migrations/ live). */
export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Every entity the ORM knows. New entities are added here. */
export const entities = [
  UserSchema,
  ApiKeySchema,
  ProjectSchema,
  ReportSchema,
  SiteSchema,
  GatewayHostSchema,
  ConsoleSessionSchema,
  ChallengeStatSchema,
  AuditSchema,
  AuditRunSchema,
  AuditPageSchema,
  WebhookSchema,
  WebhookDeliverySchema,
  LabSampleSchema,
  AuditBudgetSchema,
];

/**
 * Options shared by PostgreSQL and PGlite: same entities. No migrator: the serving process
 * never loads one (src/db/migrator.ts adds it where migrations run).
 */
export function baseOptions(): Options {
  return defineConfig({
    entities,
    preferTs: true,
    forceUtcTimezone: true,
    discovery: { warnWhenNoEntities: true },
  });
}
