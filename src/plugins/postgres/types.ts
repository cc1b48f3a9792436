/**
 * Type names and decoders of result columns by OID. Built-in types are known; others (enums,
 * domains, extension types, arrays of them) are looked up once per session in pg_type, on the
 * connection that runs the statement (inside its read-only transaction), and remembered.
 * (A column of a domain type is described with the domain's base type by the server already.)
 */
import { extended, type Runner } from './client.js';
import { BUILT_IN_TYPE_NAMES, decoderFor, type Decoder } from './values.js';

export interface ResolvedType {
  name: string;
  decode: Decoder;
}

export interface TypeCatalog {
  resolve(conn: Runner, oids: number[], signal: AbortSignal): Promise<ResolvedType[]>;
  /** These OIDs' types when every one is known already (nothing is looked up), else undefined. */
  known(oids: readonly number[]): ResolvedType[] | undefined;
  /**
   * Whether this pool described the statement (its exact text) before, its columns' types then
   * all known: execute.ts then sends its Describe and its COPY in one write.
   */
  describedBefore(sql: string): boolean;
  /** Remembers a statement described (the last DESCRIBED_TEXTS texts, the oldest forgotten first). */
  described(sql: string): void;
}

/** How many statement texts a pool remembers as described (execute.ts's one-write open). */
export const DESCRIBED_TEXTS = 1000;

export function createTypeCatalog(): TypeCatalog {
  const known = new Map<number, ResolvedType>();
  for (const [oid, name] of Object.entries(BUILT_IN_TYPE_NAMES)) {
    known.set(Number(oid), { name, decode: decoderFor(Number(oid)) });
  }

  async function lookUp(conn: Runner, oids: number[]): Promise<void> {
    const rows = await extended(
      conn,
      `select t.oid::int8 as oid,
              case when t.typcategory = 'A' and e.oid is not null then e.typname || '[]' else t.typname end as name
         from pg_catalog.pg_type t left join pg_catalog.pg_type e on e.oid = t.typelem
        where t.oid = any($1::oid[])`,
      [`{${oids.join(',')}}`],
    ) as unknown as Array<{ oid: string; name: string }>;
    for (const row of rows) {
      known.set(Number(row.oid), { name: row.name, decode: decoderFor(Number(row.oid)) });
    }
  }

  const texts = new Set<string>();
  return {
    known(oids) {
      const found: ResolvedType[] = [];
      for (const oid of oids) {
        const type = known.get(oid);
        if (!type) return undefined;
        found.push(type);
      }
      return found;
    },
    describedBefore: (sql) => texts.has(sql),
    described(sql) {
      if (texts.has(sql)) return;
      if (texts.size >= DESCRIBED_TEXTS) texts.delete(texts.values().next().value!);
      texts.add(sql);
    },
    async resolve(conn, oids, signal) {
      const missing = [...new Set(oids.filter((oid) => !known.has(oid)))];
      if (missing.length > 0 && !signal.aborted) await lookUp(conn, missing);
      return oids.map((oid) => known.get(oid) ?? { name: `oid:${oid}`, decode: decoderFor(oid) });
    },
  };
}
