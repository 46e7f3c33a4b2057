/** MikroORM's runtime values the service's modules share (entities import `@mikro-orm/core` directly). */
export { LockMode, IsolationLevel } from '@mikro-orm/core';
export { MikroORM, defineConfig } from '@mikro-orm/postgresql';
