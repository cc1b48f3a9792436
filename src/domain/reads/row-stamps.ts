/**
 * Row stamps: what the store can say, cheaply, about whether what a read shows has changed, so
 * that an ETag made from them can be checked (If-None-Match) without reading or building the
 * answer. A stamp is text that changes whenever any row the read shows is written (or appears,
 * or goes); equal stamps promise the same rows, so the same answer for the same caller and view.
 *
 * A read takes its stamps BEFORE it reads what it shows: a change between the two then makes a
 * tag older than the answer (the next check answers 200), never an answer older than its tag.
 */
import type { PageRequest } from '../../core/cursor.js';

/** The resources whose lists and single reads are stamped (besides the runs and the reports' own read model). */
export type StampedKind = 'connection' | 'query' | 'channel' | 'user';

export interface RunListFilter {
  status?: string | undefined;
  reportId?: string | undefined;
  trigger?: string | undefined;
}

export interface RowStamps {
  /** One resource's stamp; undefined when there is no such resource (its read answers 404). */
  one(kind: StampedKind, id: string): Promise<string | undefined>;
  /** The stamps of a page of a list, in the list's order, with the row that says a next page exists. */
  page(kind: StampedKind, q: PageRequest): Promise<string>;
  /** One run with its delivery attempts. */
  run(id: string): Promise<string | undefined>;
  /** A page of GET /runs. */
  runs(filter: RunListFilter, q: PageRequest): Promise<string>;
}
