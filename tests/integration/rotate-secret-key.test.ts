/**
 * Re-sealing the sealed columns with the current key (`herald rotate-secret-key`), on a scratch
 * table registered the way a feature registers its column: batches, v1 and v2 values of
 * previous keys, values already current, nulls, values no key opens, a row changed between
 * read and write, and a second run that finds nothing to do.
 */
import { randomBytes } from 'node:crypto';
import { createCipheriv } from 'node:crypto';
import postgres from 'postgres';
import { isolate, type Isolated } from '../support/isolation.js';
import { createKeyring } from '../../src/infra/crypto/keyring.js';
import { createSecretBox } from '../../src/infra/crypto/secret-box.js';
import { contextOf, sealedColumn, SEALED_COLUMNS } from '../../src/infra/crypto/sealed-columns.js';
import { resealRow, rotateSealedColumns } from '../../src/infra/crypto/rotation.js';

const OLD = randomBytes(32);
const OLDER = randomBytes(32);
const NEW = randomBytes(32);
const ENTRY = sealedColumn('scratch_secrets', 'secret');
const OTHER = sealedColumn('scratch_tokens', 'token', { idColumn: 'token_id', context: 'scratch.token/{id}' });

let iso: Isolated;
let sql: postgres.Sql;

function sealV1(key: Buffer, plaintext: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `v1:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
}

const id = (n: number) => `00000000-0000-7000-8000-${String(n).padStart(12, '0')}`;

beforeAll(async () => {
  iso = await isolate();
  sql = postgres(iso.databaseUrl, { max: 2, onnotice: () => undefined });
  await sql`create table scratch_secrets (id uuid primary key, secret text)`;
  await sql`create table scratch_tokens (token_id bigint primary key, token text)`;
}, 30_000);

afterAll(async () => {
  await sql?.end();
  await iso?.release();
});

it('registers the real sealed columns with their table, id column and context', async () => {
  expect(SEALED_COLUMNS).toContainEqual({ table: 'users', idColumn: 'id', column: 'totp_secret', context: 'users.totp_secret:{id}' });
  expect(contextOf(SEALED_COLUMNS[0]!, 'abc')).toBe('users.totp_secret:abc');
  // Each registered column exists in the migrated store.
  for (const c of SEALED_COLUMNS) {
    const [row] = await sql`select count(*)::int as n from information_schema.columns
      where table_name = ${c.table} and column_name in (${c.idColumn}, ${c.column})`;
    expect([c.table, c.column, row!.n]).toEqual([c.table, c.column, 2]);
  }
});

it('re-seals every value of previous keys with the current key, in batches, and is idempotent', async () => {
  const oldBox = createSecretBox(createKeyring(OLD));
  const box = createSecretBox(createKeyring(NEW, [OLD, OLDER]));
  const plain = (n: number) => `secret number ${n}`;
  const rows: Array<{ id: string; secret: string | null }> = [];
  for (let n = 1; n <= 11; n += 1) {
    const ctx = contextOf(ENTRY, id(n));
    const secret = n === 4 ? null
      : n % 3 === 0 ? sealV1(OLDER, plain(n), ctx)
        : n === 5 ? box.seal(plain(n), ctx)
          : oldBox.seal(plain(n), ctx);
    rows.push({ id: id(n), secret });
  }
  await sql`insert into scratch_secrets ${sql(rows)}`;
  await sql`insert into scratch_tokens (token_id, token) values (7, ${oldBox.seal('bigint row', 'scratch.token/7')})`;

  const batches: number[] = [];
  const results = await rotateSealedColumns(sql, box, [ENTRY, OTHER], { batchSize: 3, onBatch: (p) => batches.push(p.resealed) });
  expect(results).toEqual([
    { column: 'scratch_secrets.secret', resealed: 9, changed: 0, failed: 0, failedIds: [], current: 10 },
    { column: 'scratch_tokens.token', resealed: 1, changed: 0, failed: 0, failedIds: [], current: 1 },
  ]);
  expect(batches).toEqual([3, 6, 9, 1]);

  // Everything now opens with the current key alone, each in its own row's context.
  const newOnly = createSecretBox(createKeyring(NEW));
  const after = await sql<Array<{ id: string; secret: string | null }>>`select id, secret from scratch_secrets order by id`;
  for (const [i, row] of after.entries()) {
    if (i + 1 === 4) { expect(row.secret).toBeNull(); continue; }
    expect(row.secret!.startsWith(`v2:${newOnly.kid}:`)).toBe(true);
    expect(newOnly.open(row.secret!, contextOf(ENTRY, row.id))).toBe(plain(i + 1));
  }
  const [token] = await sql`select token from scratch_tokens`;
  expect(newOnly.open(token!.token as string, 'scratch.token/7')).toBe('bigint row');
  const untouched = after[4]!.secret; // row 5 was current already: not rewritten

  const again = await rotateSealedColumns(sql, box, [ENTRY, OTHER], { batchSize: 3 });
  expect(again.map((r) => [r.resealed, r.changed, r.failed])).toEqual([[0, 0, 0], [0, 0, 0]]);
  expect((await sql`select secret from scratch_secrets where id = ${id(5)}`)[0]!.secret).toBe(untouched);
});

it('leaves a value alone when its row changed between read and write', async () => {
  const box = createSecretBox(createKeyring(NEW, [OLD]));
  const ctx = contextOf(ENTRY, id(20));
  const read = createSecretBox(createKeyring(OLD)).seal('as read', ctx);
  await sql`insert into scratch_secrets (id, secret) values (${id(20)}, ${read})`;
  // Meanwhile the service writes a new value.
  const written = box.seal('written meanwhile', ctx);
  await sql`update scratch_secrets set secret = ${written} where id = ${id(20)}`;
  expect(await resealRow(sql, box, ENTRY, id(20), read)).toBe(false);
  expect((await sql`select secret from scratch_secrets where id = ${id(20)}`)[0]!.secret).toBe(written);
});

it('counts values no key opens, names their rows, and leaves them as they are', async () => {
  const stranger = createSecretBox(createKeyring(randomBytes(32)));
  const lost = stranger.seal('sealed with a key nobody kept', contextOf(ENTRY, id(30)));
  await sql`insert into scratch_secrets (id, secret) values (${id(30)}, ${lost}), (${id(31)}, ${'plain text, never sealed'})`;
  const [result] = await rotateSealedColumns(sql, createSecretBox(createKeyring(NEW, [OLD])), [ENTRY]);
  expect(result).toMatchObject({ resealed: 0, failed: 2, failedIds: [id(30), id(31)] });
  expect((await sql`select secret from scratch_secrets where id = ${id(30)}`)[0]!.secret).toBe(lost);
});
