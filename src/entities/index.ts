export { UserSchema } from './user.entity.ts';
export { ApiKeySchema } from './api-key.entity.ts';
export { ProjectSchema } from './project.entity.ts';
export { ReportSchema } from './report.entity.ts';
export { SiteSchema } from './site.entity.ts';
export { ConsoleSessionSchema } from './console-session.entity.ts';
export { ChallengeStatSchema } from './challenge-stat.entity.ts';
export { AuditSchema, AuditRunSchema, AuditPageSchema } from './audit.entity.ts';
export { WebhookSchema, WebhookDeliverySchema } from './webhook.entity.ts';
