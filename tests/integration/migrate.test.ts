import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import postgres from 'postgres';
import { migrate, pendingMigrations } from '../../src/infra/db/migrate.js';
import { migrationsFolder } from '../../src/infra/paths.js';
import { isolate, type Isolated } from '../support/isolation.js';

/** The tables the bundled migrations create, read from their SQL. */
function tablesInMigrations(): string[] {
  const names = new Set<string>();
  for (const file of readdirSync(migrationsFolder).filter((f) => f.endsWith('.sql'))) {
    const text = readFileSync(path.join(migrationsFolder, file), 'utf8');
    for (const m of text.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?"(?:public"\.")?([A-Za-z0-9_]+)"/g)) names.add(m[1]!);
  }
  return [...names].sort();
}

let iso: Isolated;
const connections: postgres.Sql[] = [];

beforeAll(async () => { iso = await isolate({ template: false }); });
afterAll(async () => {
  await Promise.all(connections.map((sql) => sql.end({ timeout: 5 })));
  await iso?.release();
});

describe('migrate', () => {
  it('applies every migration exactly once when four processes run it at the same time', async () => {
    for (let i = 0; i < 4; i += 1) {
      connections.push(postgres(iso.databaseUrl, { max: 1, onnotice: () => undefined, connection: { application_name: `migrate-test-${i}` } }));
    }
    // Every connection is open before the race starts.
    await Promise.all(connections.map((sql) => sql`select 1`));
    const [first] = connections;
    expect(await pendingMigrations(first!)).toBeGreaterThan(0);

    const results = await Promise.all(connections.map((sql) => migrate(sql)));

    const total = results[0]!.total;
    expect(total).toBeGreaterThan(0);
    for (const r of results) expect(r.total).toBe(total);
    // One process applied everything; the others found nothing left to do.
    expect(results.map((r) => r.applied).sort((a, b) => a - b)).toEqual([0, 0, 0, total]);

    const rows = await first!<{ hash: string }[]>`select hash from herald_migrations`;
    expect(rows).toHaveLength(total);
    expect(new Set(rows.map((r) => r.hash)).size).toBe(total);

    const expected = tablesInMigrations();
    expect(expected.length).toBeGreaterThan(0);
    const present = await first!<{ table_name: string }[]>`
      select table_name from information_schema.tables where table_schema = 'public' and table_name in ${first!(expected)}`;
    expect(present.map((r) => r.table_name).sort()).toEqual(expected);

    expect(await pendingMigrations(first!)).toBe(0);
  });

  it('applies nothing when run again', async () => {
    const again = await migrate(connections[1]!);
    expect(again.applied).toBe(0);
    expect(again.total).toBeGreaterThan(0);
    const rows = await connections[2]!<{ count: number }[]>`select count(*)::int as count from herald_migrations`;
    expect(rows[0]?.count).toBe(again.total);
  });
});
