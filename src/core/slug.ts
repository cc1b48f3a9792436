/** A name as a file-name-safe slug: "Daily Sales (EU)" → "daily-sales-eu"; `fallback` when nothing is left. */
export function slugOf(name: string, fallback: string, max = 60): string {
  return name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, max) || fallback;
}
