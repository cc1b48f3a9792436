/**
 * The connections service on in-memory fakes and a manual clock: a change commits with its
 * security event or not at all (a failing audit insert leaves no change behind); the password is
 * sealed and never follows settings to another server unless given again; a connection a query
 * uses cannot be deleted; a changed or deleted connection's pool is closed.
 */
import { manualClock } from '../../src/core/clock.js';
import type { DomainError } from '../../src/core/errors.js';
import { newId } from '../../src/core/ids.js';
import { createConnectionsService } from '../../src/domain/connections/connections-service.js';
import { passwordContext } from '../../src/domain/connections/pools.js';
import { FakeConnections, plainSecrets } from '../support/fakes/connections.js';
import { fakeConnector, fakePlugins, fakePools } from '../support/fakes/connectors.js';
import { FakeQueries } from '../support/fakes/queries.js';
import { FakeSecurityEvents } from '../support/fakes/security-events.js';
import { fakeUnitOfWork } from '../support/fakes/unit-of-work.js';

const T0 = new Date('2026-11-25T10:00:00.000Z');
const actor = { type: 'user' as const, userId: newId() };
const settings = { type: 'fake', host: 'db.internal', database: 'shop', username: 'reader', password: 's3cret' };

function world() {
  const clock = manualClock(T0);
  const queries = new FakeQueries();
  const connections = new FakeConnections(queries);
  const securityEvents = new FakeSecurityEvents();
  const uow = fakeUnitOfWork({ connections, securityEvents, queries });
  const connector = fakeConnector();
  const plugins = fakePlugins(connector);
  const pools = fakePools(plugins);
  const service = createConnectionsService({
    store: connections, uow, plugins, secrets: plainSecrets, checkSchema: () => [], pools, limits: { poolSize: 1, connectTimeoutMs: 1000 }, clock,
  });
  return { clock, queries, connections, securityEvents, uow, connector, pools, service };
}

const failure = (p: Promise<unknown>) => p.then(() => { throw new Error('expected a failure'); }, (err: unknown) => err as DomainError);

it('creates a connection with the plugin\'s default port and its password sealed, audited in the same unit of work', async () => {
  const w = world();
  const created = await w.service.create({ ...settings, name: ' Shop ' }, actor);
  expect(created).toMatchObject({ name: 'Shop', type: 'fake', port: 5999, sslMode: 'prefer', version: 1, createdAt: T0, createdBy: actor.userId });
  expect(plainSecrets.open(created.passwordSealed!, passwordContext(created.id))).toBe('s3cret');
  expect(w.securityEvents.rows.all()).toEqual([expect.objectContaining({
    type: 'connection.created', actorUserId: actor.userId, targetType: 'connection', targetId: created.id, occurredAt: T0, details: { name: 'Shop', type: 'fake' },
  })]);
  expect(w.uow.commits).toBe(1);
});

it('leaves no change behind when the security event cannot be written (create, update and delete)', async () => {
  const w = world();
  w.securityEvents.failNext();
  await expect(w.service.create({ ...settings, name: 'Shop' }, actor)).rejects.toThrow('the security event could not be written');
  expect(w.connections.rows.all()).toEqual([]);

  const saved = await w.service.create({ ...settings, name: 'Shop' }, actor);
  w.securityEvents.failNext();
  await expect(w.service.update(saved.id, { version: 1, name: 'Renamed' }, actor)).rejects.toThrow();
  expect(w.connections.rows.get(saved.id)).toMatchObject({ name: 'Shop', version: 1 });

  w.securityEvents.failNext();
  await expect(w.service.delete(saved.id, actor)).rejects.toThrow();
  expect(w.connections.rows.get(saved.id)).toBeDefined();
  expect(w.securityEvents.types()).toEqual(['connection.created']);
  expect(w.uow.rollbacks).toBe(3);
});

it('refuses an unknown type, a taken name and a stale version', async () => {
  const w = world();
  expect(await failure(w.service.create({ ...settings, type: 'oracle', name: 'x' }, actor))).toMatchObject({
    code: 'validation.failed', extras: { errors: [expect.objectContaining({ field: 'type', code: 'validation.enum' })] },
  });
  const saved = await w.service.create({ ...settings, name: 'Shop' }, actor);
  expect(await failure(w.service.create({ ...settings, name: 'SHOP' }, actor))).toMatchObject({
    code: 'validation.failed', extras: { errors: [expect.objectContaining({ field: 'name', code: 'validation.unique' })] },
  });
  expect((await failure(w.service.update(saved.id, { version: 7, name: 'x' }, actor))).code).toBe('conflict.version');
  expect(w.securityEvents.types()).toEqual(['connection.created']);
});

it('keeps the stored password only for the same server: moving it needs the password again; an update closes the pool', async () => {
  const w = world();
  const saved = await w.service.create({ ...settings, name: 'Shop' }, actor);
  const moved = await failure(w.service.update(saved.id, { version: 1, host: 'evil.example.com' }, actor));
  expect(moved).toMatchObject({ code: 'validation.failed', extras: { errors: [expect.objectContaining({ field: 'password', code: 'validation.required' })] } });
  w.clock.advance(60_000);
  const after = await w.service.update(saved.id, { version: 1, host: 'replica.internal', password: 'n3w' }, actor);
  expect(after).toMatchObject({ host: 'replica.internal', version: 2, updatedAt: new Date(T0.getTime() + 60_000) });
  expect(plainSecrets.open(after.passwordSealed!, passwordContext(saved.id))).toBe('n3w');
  expect(w.securityEvents.rows.all().find((e) => e.type === 'connection.updated')?.details).toEqual({ name: 'Shop', password_changed: true });
  expect(w.pools.dropped).toEqual([saved.id]);
});

it('refuses to delete a connection a query uses, naming the query, and deletes an unused one', async () => {
  const w = world();
  const saved = await w.service.create({ ...settings, name: 'Shop' }, actor);
  const query = w.queries.seed({ id: newId(), connectionId: saved.id, sql: 'select 1', name: 'Daily' });
  const refused = await failure(w.service.delete(saved.id, actor));
  expect(refused).toMatchObject({ code: 'connection.in_use', extras: { dependents: [{ type: 'query', id: query.id, name: 'Daily' }] } });
  expect(w.securityEvents.types()).toEqual(['connection.created']);
  await w.queries.delete(query.id);
  await w.service.delete(saved.id, actor);
  expect(w.connections.rows.all()).toEqual([]);
  expect(w.securityEvents.types()).toEqual(['connection.created', 'connection.deleted']);
  expect((await failure(w.service.delete(saved.id, actor))).code).toBe('not_found');
});

it('tests a saved connection through its pool and keeps its schema with the clock\'s time', async () => {
  const w = world();
  const saved = await w.service.create({ ...settings, name: 'Shop' }, actor);
  expect(await w.service.test(saved.id)).toEqual({ serverVersion: 'fake 1.0', roundTripMs: 0.1 });
  w.clock.advance(5000);
  const schema = await w.service.refreshSchema(saved.id);
  expect(schema).toMatchObject({ refreshedAt: new Date(T0.getTime() + 5000), tables: [expect.objectContaining({ name: 'sales' })] });
  expect(await w.service.schema(saved.id)).toEqual(schema);
  expect(w.connector.opened).toBe(1);
});
