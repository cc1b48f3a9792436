/**
 * Row stamps: what the store can say, cheaply, about whether what a read shows has changed, so
 * that an ETag made from them can be checked (If-None-Match) without reading or building the
 * answer. A row's stamp changes with every write to the row and never comes back to an earlier
 * value (src/infra/db/stores/row-stamps.ts: PostgreSQL's row versions).
 *
 * A read takes its stamps before it reads what it shows, in another statement. What may differ
 * between the two is which rows there are: a row that appears (or a configuration mark that
 * appears, or a next page) between them and goes again later would bring the stamps back to
 * their first value with the answer still showing it. So the answer is tagged by the stamps only
 * when it shows exactly the rows they name, in their order, with the same marks and the same
 * next page (`Shown`, compared by stampedRead); then each of those rows was unchanged from the
 * stamps to the answer or changed for good, and equal stamps later mean the same answer.
 */
import type { PageRequest } from '../../core/cursor.js';

/** The resources whose lists and single reads are stamped (besides the runs and the reports' own read model). */
export type StampedKind = 'connection' | 'query' | 'channel' | 'user';

/** Which rows an answer shows: what its stamps must name for them to tag it. */
export interface Shown {
  /** The rows' ids in the answer's order (for a run: its delivery attempts', sorted). */
  ids: string[];
  /** For each, whether a configuration mark is on it. */
  marked: boolean[];
  /** Whether a next page exists. */
  more: boolean;
}

export interface Stamps extends Shown {
  /** The text the tag is made from. */
  text: string;
}

export interface RunListFilter {
  status?: string | undefined;
  reportId?: string | undefined;
  trigger?: string | undefined;
}

export interface RowStamps {
  /** One resource's stamps; undefined when there is no such resource (its read answers 404). */
  one(kind: StampedKind, id: string): Promise<Stamps | undefined>;
  /** The stamps of a page of a list, in the list's order. */
  page(kind: StampedKind, q: PageRequest): Promise<Stamps>;
  /** One run with its delivery attempts. */
  run(id: string): Promise<Stamps | undefined>;
  /** A page of GET /runs. */
  runs(filter: RunListFilter, q: PageRequest): Promise<Stamps>;
}

/** Whether an answer shows exactly the rows its stamps name (see above). */
export function shownAsStamped(stamps: Shown, shown: Shown): boolean {
  if (stamps.more !== shown.more || stamps.ids.length !== shown.ids.length || stamps.marked.length !== shown.marked.length) return false;
  for (let i = 0; i < stamps.ids.length; i += 1) if (stamps.ids[i] !== shown.ids[i]) return false;
  for (let i = 0; i < stamps.marked.length; i += 1) if (stamps.marked[i] !== shown.marked[i]) return false;
  return true;
}
