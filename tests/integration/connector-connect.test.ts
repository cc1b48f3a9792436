/**
 * Testing a connection: success reports the server version and a round trip; a bad password is
 * connection.auth_failed; a refused port or a host that never answers is connection.unreachable
 * within the connect timeout; a MySQL server's request for a local file gets nothing.
 * Only loopback: real servers, and stand-ins (tests/support/fake-servers.ts) where a real local
 * server cannot show the case.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mysqlConnector } from '../../src/plugins/mysql/index.js';
import { postgresConnector } from '../../src/plugins/postgres/index.js';
import type { ConnectionConfig, Connector } from '../../src/domain/plugins/connector.js';
import { createMysqlScratch, createPgScratch, mysqlAdmin, mysqlRun, noSignal, type ScratchDb } from '../support/connector-dbs.js';
import { closedPort, mysqlAskingForFile, pgRefusingPassword, silentServer } from '../support/fake-servers.js';

let pg: ScratchDb;
let my: ScratchDb;
const authUser = `herald_t_auth_${randomBytes(3).toString('hex')}`;

beforeAll(async () => {
  [pg, my] = await Promise.all([createPgScratch(), createMysqlScratch()]);
  for (const host of ['%', 'localhost', '127.0.0.1']) {
    await my.admin(`CREATE USER '${authUser}'@'${host}' IDENTIFIED BY 'the-right-password'`);
    await my.admin(`GRANT SELECT ON ${my.name}.* TO '${authUser}'@'${host}'`);
  }
});

afterAll(async () => {
  const admin = mysqlAdmin();
  for (const host of ['%', 'localhost', '127.0.0.1']) await mysqlRun(admin, `DROP USER IF EXISTS '${authUser}'@'${host}'`).catch(() => undefined);
  admin.end();
  await Promise.all([pg?.drop(), my?.drop()]);
});

// A connect timeout covers the whole handshake (and prefer's TLS try): room for a loaded machine;
// the silent server's test sets its own short one.
const limits = { poolSize: 1, connectTimeoutMs: 10_000 };

async function testWith(connector: Connector, config: ConnectionConfig, opts = limits) {
  const session = connector.open(config, opts);
  try {
    return await session.test(noSignal());
  } finally {
    await session.close();
  }
}

const both: Array<[string, Connector, () => ConnectionConfig]> = [
  ['postgres', postgresConnector, () => pg.config],
  ['mysql', mysqlConnector, () => my.config],
];

test('PostgreSQL: test() reports the server version and a round trip', async () => {
  const result = await testWith(postgresConnector, pg.config);
  expect(result.serverVersion).toMatch(/^PostgreSQL \d+/);
  expect(result.roundTripMs).toBeGreaterThanOrEqual(0);
});

test('MariaDB: test() reports the server version and a round trip', async () => {
  const result = await testWith(mysqlConnector, my.config);
  expect(result.serverVersion).toMatch(/^(MariaDB|MySQL) \d+/);
  expect(result.roundTripMs).toBeGreaterThanOrEqual(0);
});

test.each(both)('%s: ssl_mode prefer falls back to plain text on a server without TLS', async (_name, connector, config) => {
  await expect(testWith(connector, { ...config(), sslMode: 'prefer' })).resolves.toMatchObject({ serverVersion: expect.any(String) });
});

test.each(both)('%s: ssl_mode require on a server without TLS is connection.unreachable', async (_name, connector, config) => {
  await expect(testWith(connector, { ...config(), sslMode: 'require' })).rejects.toMatchObject({ code: 'connection.unreachable' });
});

test.each(both)('%s: a refused port is connection.unreachable', async (_name, connector, config) => {
  const port = await closedPort();
  await expect(testWith(connector, { ...config(), port })).rejects.toMatchObject({
    code: 'connection.unreachable', message: expect.stringContaining('refused'),
  });
});

// The drivers' own defaults (postgres.js 30 s, mysql2 10 s) would overrun this test's 8 s.
test.each(both)('%s: a host that accepts and never answers is connection.unreachable after the connect timeout', async (_name, connector, config) => {
  const server = await silentServer();
  try {
    await expect(testWith(connector, { ...config(), port: server.port }, { poolSize: 1, connectTimeoutMs: 1000 })).rejects.toMatchObject({
      code: 'connection.unreachable', message: expect.stringContaining('connect timeout'),
    });
  } finally {
    await server.close();
  }
}, 8000);

test('PostgreSQL: a wrong password (28P01) is connection.auth_failed, and the message does not carry it', async () => {
  const server = await pgRefusingPassword();
  try {
    const err = await testWith(postgresConnector, { ...pg.config, username: 'reader', password: 'not-the-password', port: server.port })
      .then(() => null, (e: Error & { code?: string }) => e);
    expect(err).toMatchObject({ code: 'connection.auth_failed', message: expect.stringContaining('28P01') });
    expect(err!.message).not.toContain('not-the-password');
    expect(server.passwords).toEqual(['not-the-password']);
  } finally {
    await server.close();
  }
});

test('PostgreSQL: an unknown user (28000) and an unknown database (3D000) are connection.auth_failed', async () => {
  await expect(testWith(postgresConnector, { ...pg.config, username: 'herald_t_nobody' })).rejects.toMatchObject({ code: 'connection.auth_failed', message: expect.stringContaining('28000') });
  await expect(testWith(postgresConnector, { ...pg.config, database: 'herald_t_no_such_db' })).rejects.toMatchObject({ code: 'connection.auth_failed', message: expect.stringContaining('3D000') });
});

test('MariaDB: a wrong password (1045) is connection.auth_failed; the right one works', async () => {
  const config = { ...my.config, username: authUser, password: 'a-wrong-password' };
  const err = await testWith(mysqlConnector, config).then(() => null, (e: Error & { code?: string }) => e);
  expect(err).toMatchObject({ code: 'connection.auth_failed', message: expect.stringContaining('1045') });
  expect(err!.message).not.toContain('a-wrong-password');
  await expect(testWith(mysqlConnector, { ...config, password: 'the-right-password' })).resolves.toMatchObject({ serverVersion: expect.any(String) });
});

test('MariaDB: an unknown database (1049) is connection.auth_failed', async () => {
  await expect(testWith(mysqlConnector, { ...my.config, database: 'herald_t_no_such_db' })).rejects.toMatchObject({ code: 'connection.auth_failed', message: expect.stringContaining('1049') });
});

test("a MySQL server that asks for a local file gets none: the client never announced LOCAL_FILES and sends an empty 'file'", async () => {
  const server = await mysqlAskingForFile('/etc/passwd');
  try {
    await expect(testWith(mysqlConnector, { ...my.config, port: server.port })).rejects.toMatchObject({ code: expect.stringMatching(/^connection\./) });
    expect(server.clientFlags).toHaveLength(1);
    expect(server.clientFlags[0]! & 0x80).toBe(0); // CLIENT_LOCAL_FILES
    const sent = Buffer.concat(server.afterRequest);
    expect([...sent]).toEqual([0, 0, 0, 2]); // one empty packet: end of an empty file
    expect(sent.toString('latin1')).not.toContain(readFileSync('/etc/passwd', 'latin1').slice(0, 8));
  } finally {
    await server.close();
  }
});
