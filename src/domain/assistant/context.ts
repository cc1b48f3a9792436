/**
 * What the provider is told of a connection: its tables and columns with their types, the ones
 * the prompt names first, trimmed to a budget of characters. Names and comments are data: the
 * assistant fences them and tells the provider never to follow text inside them. Pure.
 */
import type { SchemaTable } from '../plugins/connector.js';

/** The schema text's budget (characters), about 6,000 tokens. */
export const SCHEMA_BUDGET = 24_000;

const words = (s: string): string[] => s.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 2);
/** "orders" matches "order", "categories" "category". */
const stem = (w: string): string => w.replace(/(ies|es|s)$/, '');

/** How much a table seems to concern the prompt: its name, then its columns. */
export function relevance(table: SchemaTable, prompt: string): number {
  const asked = new Set(words(prompt).map(stem));
  let score = 0;
  for (const w of words(table.name)) if (asked.has(stem(w))) score += 10;
  for (const c of table.columns) for (const w of words(c.name)) if (asked.has(stem(w))) score += 1;
  return score;
}

export const tableLine = (t: SchemaTable): string =>
  `${t.schema}.${t.name}${t.kind === 'view' ? ' (view)' : ''}: ${t.columns.map((c) => `${c.name} ${c.type}${c.nullable ? '' : ' not null'}`).join(', ')}`;

/** The tables to tell of, most relevant first (ties by name), within the budget; and whether some were left out. */
export function schemaContext(tables: readonly SchemaTable[], prompt: string, budget = SCHEMA_BUDGET): { text: string; tables: SchemaTable[]; omitted: number } {
  const ranked = [...tables].map((t) => ({ t, score: relevance(t, prompt) }))
    .sort((a, b) => b.score - a.score || `${a.t.schema}.${a.t.name}`.localeCompare(`${b.t.schema}.${b.t.name}`));
  const chosen: SchemaTable[] = [];
  let used = 0;
  for (const { t } of ranked) {
    const line = tableLine(t);
    if (used + line.length + 1 > budget) continue;
    chosen.push(t);
    used += line.length + 1;
  }
  return { text: chosen.map(tableLine).join('\n'), tables: chosen, omitted: tables.length - chosen.length };
}
