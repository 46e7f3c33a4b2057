export { UserSchema, type User } from './user.entity.ts';
export { ApiKeySchema, type ApiKey } from './api-key.entity.ts';
