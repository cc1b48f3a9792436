/**
 * Services own the transaction boundary: no repository opens a transaction of its own. The store's
 * repositories (src/infra/db/stores) call neither `.transaction(` nor `.begin(`; the one nested
 * scope they may use is a savepoint through inSavepoint (src/infra/db/client.ts), so that a
 * statement the database refuses fails alone inside the caller's unit of work. Transactions are
 * opened in src/infra/db only by the unit of work, that savepoint helper and the migrations; no
 * service reaches past the unit of work for one of its own.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OPENS_A_TRANSACTION = /\.(transaction|begin)\s*\(/g;
/** Outside the store adapter, `begin` is also a delivery attempt's start (attempts.begin): only the store clients' count. */
const OPENS_A_TRANSACTION_ELSEWHERE = /\.transaction\s*\(|\b(sql|db|tx)\.begin\s*\(/g;

function sourcesUnder(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)));
}

/** `file:line` of every call that opens a transaction (or savepoint) directly. */
function openings(files: string[], pattern = OPENS_A_TRANSACTION): string[] {
  return files.flatMap((file) => readFileSync(path.join(root, file), 'utf8').split('\n')
    .flatMap((line, i) => (line.match(pattern) ? [`${file}:${i + 1}`] : [])));
}

it('no repository of the store opens a transaction (a savepoint goes through inSavepoint)', () => {
  const stores = sourcesUnder('src/infra/db/stores');
  expect(stores.length).toBeGreaterThan(10); // so an empty answer means something
  expect(openings(stores)).toEqual([]);
});

it('in the store adapter, only the unit of work, the savepoint helper and the migrations open one', () => {
  const places = openings(sourcesUnder('src/infra/db')).map((at) => at.replace(/:\d+$/, ''));
  expect([...new Set(places)].sort()).toEqual(['src/infra/db/client.ts', 'src/infra/db/migrate.ts', 'src/infra/db/unit-of-work.ts']);
  const client = readFileSync(path.join(root, 'src/infra/db/client.ts'), 'utf8');
  // The helper is the one call there, and it nests in the caller's transaction (a savepoint).
  expect(client.match(OPENS_A_TRANSACTION)).toHaveLength(1);
  expect(client).toMatch(/export function inSavepoint<T>\(tx: Tx, work: \(sp: Tx\) => Promise<T>\): Promise<T> \{\s*return tx\.transaction\(work\);/);
});

it('no service, job or process opens a transaction but through the unit of work', () => {
  const elsewhere = ['src/domain', 'src/jobs', 'src/handlers', 'src/http'].flatMap(sourcesUnder);
  expect(elsewhere.length).toBeGreaterThan(50);
  expect(openings(elsewhere, OPENS_A_TRANSACTION_ELSEWHERE)).toEqual([]);
});
