import { AsyncLocalStorage, executionAsyncId } from 'node:async_hooks';
import { TransactionContext } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/accounts/users.ts';
import { ormStorageRuns } from '../../src/db/orm-storage.ts';
import { UserSchema } from '../../src/entities/user.entity.ts';
import { openTestServices, type TestServices } from '../helpers/services.ts';

/** The async id a promise reaction runs under: 0 when no async hook is on. */
const reactionAsyncId = () => Promise.resolve().then(() => executionAsyncId());

/** MikroORM's transaction storage (a private static of TransactionContext). */
const transactionStorage = (TransactionContext as unknown as { storage: AsyncLocalStorage<unknown> }).storage;

const isOn = (storage: AsyncLocalStorage<unknown>) => (storage as unknown as { enabled: boolean }).enabled;

describe("MikroORM's AsyncLocalStorages, on only while the ORM is inside an operation", () => {
  let services: TestServices;
  beforeAll(async () => {
    services = await openTestServices();
  });
  afterAll(async () => {
    await services?.cleanup();
  });

  it('keeps the transaction context inside a transaction and turns its storage off after', async () => {
    const storage = transactionStorage;
    const em = services.orm.em.fork();
    const id = await em.transactional(async (tx) => {
      expect(TransactionContext.getEntityManager()).toBe(tx);
      expect(ormStorageRuns(storage)).toEqual({ active: 1, pinned: false });
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(TransactionContext.getEntityManager()).toBe(tx);
      return (await createUser(tx, { name: 'inside' })).id;
    });
    expect(ormStorageRuns(storage)).toEqual({ active: 0, pinned: false });
    expect(isOn(storage)).toBe(false);
    expect(TransactionContext.getEntityManager()).toBeUndefined();
    expect(await services.orm.em.fork().findOne(UserSchema, { id })).not.toBeNull();
  });

  it('keeps each of overlapping transactions in its own context while others settle', async () => {
    const storage = transactionStorage;
    // They finish in the reverse of their start order (on PGlite's one connection, in turn).
    const sameContext = await Promise.all(
      [30, 15, 0].map((delayMs, i) =>
        services.orm.em.fork().transactional(async (tx) => {
          await new Promise((resolve) => setTimeout(resolve, delayMs));
          const before = TransactionContext.getEntityManager() === tx;
          await createUser(tx, { name: `overlap ${i}` });
          return before && TransactionContext.getEntityManager() === tx;
        }),
      ),
    );
    expect(sameContext).toEqual([true, true, true]);
    expect(ormStorageRuns(storage)).toEqual({ active: 0, pinned: false });
    expect(isOn(storage)).toBe(false);
  });

  it('leaves no async hook on once writes and reads have settled', async () => {
    const em = services.orm.em.fork();
    await createUser(em, { name: 'flushed' });
    await em.fork().find(UserSchema, {}, { limit: 1 });
    await Promise.all([createUser(em.fork(), { name: 'a' }), createUser(em.fork(), { name: 'b' })]);
    expect(await reactionAsyncId()).toBe(0);
  });

  it('leaves other AsyncLocalStorages as Node has them: on after their run, until disabled', async () => {
    const other = new AsyncLocalStorage<number>();
    await other.run(7, async () => {
      await new Promise((resolve) => setImmediate(resolve));
      expect(other.getStore()).toBe(7);
    });
    expect(ormStorageRuns(other as AsyncLocalStorage<unknown>)).toBeNull();
    expect(isOn(other as AsyncLocalStorage<unknown>)).toBe(true);
    expect(await reactionAsyncId()).not.toBe(0);
    other.disable();
    expect(await reactionAsyncId()).toBe(0);
  });
});
