/**
 * MikroORM's runtime values for the service's own modules, loaded with require(). Its
 * packages are CommonJS; imported from an ES module, Node first lexes every file of their
 * re-export trees for the names they export, which took 250-440 ms of a 1.5-1.6 s cold start
 * on PostgreSQL (bench/hotpaths start). require() returns the same module objects without
 * it, so values from here and from an `import` elsewhere (tests, benches) are one and the
 * same. Types keep coming from `import type`.
 */
import { createRequire } from 'node:module';
import type * as Core from '@mikro-orm/core';
import type * as Postgresql from '@mikro-orm/postgresql';

const require = createRequire(import.meta.url);

const core = require('@mikro-orm/core') as typeof Core;
const postgresql = require('@mikro-orm/postgresql') as typeof Postgresql;

export const { defineEntity, p, LockMode, raw, IsolationLevel } = core;
export const { MikroORM, defineConfig } = postgresql;
