export { UserSchema, type User } from './user.entity.ts';
export { ApiKeySchema, type ApiKey } from './api-key.entity.ts';
export { ProjectSchema, type Project } from './project.entity.ts';
export { ReportSchema, type Report, type ReportResult, type Privacy } from './report.entity.ts';
export { SiteSchema, type Site } from './site.entity.ts';
