/**
 * What changed between two query versions besides the SQL text: the connection and each
 * parameter declaration; and a count of lines removed and added in the SQL. Pure.
 */

export interface VersionLike {
  connection_id: string;
  parameters: ReadonlyArray<{ name: string; type: string; default?: unknown; required?: boolean; description?: string }>;
}

export type VersionChange =
  | { kind: 'connection'; from: string; to: string }
  | { kind: 'parameter.added' | 'parameter.removed'; name: string }
  | { kind: 'parameter.changed'; name: string; fields: string[] };

export function versionChanges(from: VersionLike, to: VersionLike): VersionChange[] {
  const out: VersionChange[] = [];
  if (from.connection_id !== to.connection_id) out.push({ kind: 'connection', from: from.connection_id, to: to.connection_id });
  const before = new Map(from.parameters.map((p) => [p.name, p]));
  const after = new Map(to.parameters.map((p) => [p.name, p]));
  for (const [name, p] of after) {
    const old = before.get(name);
    if (!old) { out.push({ kind: 'parameter.added', name }); continue; }
    const fields = (['type', 'default', 'required', 'description'] as const)
      .filter((f) => JSON.stringify(old[f] ?? null) !== JSON.stringify(p[f] ?? null));
    if (fields.length > 0) out.push({ kind: 'parameter.changed', name, fields });
  }
  for (const name of before.keys()) if (!after.has(name)) out.push({ kind: 'parameter.removed', name });
  return out;
}

/** Lines removed from `a` and added in `b` (a longest common subsequence of lines; long texts are compared by counts). */
export function lineChanges(a: string, b: string): { removed: number; added: number } {
  const x = a.split('\n');
  const y = b.split('\n');
  if (x.length * y.length > 4_000_000) {
    const count = (lines: string[]) => lines.reduce((m, l) => m.set(l, (m.get(l) ?? 0) + 1), new Map<string, number>());
    const cx = count(x);
    const cy = count(y);
    let common = 0;
    for (const [line, n] of cx) common += Math.min(n, cy.get(line) ?? 0);
    return { removed: x.length - common, added: y.length - common };
  }
  let prev = new Array<number>(y.length + 1).fill(0);
  for (let i = 1; i <= x.length; i += 1) {
    const cur = new Array<number>(y.length + 1).fill(0);
    for (let j = 1; j <= y.length; j += 1) {
      cur[j] = x[i - 1] === y[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    }
    prev = cur;
  }
  const common = prev[y.length]!;
  return { removed: x.length - common, added: y.length - common };
}
