/**
 * One text by key: the user's language, else English, else the key itself; `{name}` filled from
 * the values. With `count: 1` a `<key>.one` text wins when there is one ("1 unread notification").
 */
export type Messages = Record<string, string>;

export function lookup(dict: Messages, english: Messages, key: string, vars?: Record<string, string | number>): string {
  const singular = vars?.count === 1 ? dict[`${key}.one`] ?? english[`${key}.one`] : undefined;
  const text = singular ?? dict[key] ?? english[key] ?? key;
  return vars ? text.replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m)) : text;
}
