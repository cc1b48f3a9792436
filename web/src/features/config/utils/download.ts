/**
 * The file name a Content-Disposition header proposes (RFC 6266: filename*=UTF-8''… wins over
 * filename="…"), without any folder part; the fallback when there is none.
 */
export function fileNameFrom(disposition: string | null | undefined, fallback: string): string {
  if (!disposition) return fallback;
  let name: string | undefined;
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(disposition);
  if (extended?.[1]) {
    try { name = decodeURIComponent(extended[1].trim()); } catch { name = undefined; }
  }
  if (!name) {
    const quoted = /filename\s*=\s*"((?:[^"\\]|\\.)*)"/.exec(disposition);
    const plain = /filename\s*=\s*([^";]+)/.exec(disposition);
    name = quoted?.[1]?.replace(/\\(.)/g, '$1') ?? plain?.[1]?.trim();
  }
  const base = name?.split(/[\\/]/).pop()?.trim();
  return base ? base : fallback;
}
