/**
 * Writing configuration documents: one YAML document per resource, keys sorted, no anchors,
 * long lines kept whole (SQL stays readable), so the same state always gives the same bytes.
 */
import { dump } from 'js-yaml';

export function dumpDocuments(documents: unknown[]): string {
  return documents.map((d) => `---\n${dump(d, { sortKeys: true, lineWidth: -1, noRefs: true })}`).join('');
}
