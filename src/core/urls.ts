/** What may be shown or logged of a URL. Pure. */

/** Scheme, host and port of a URL (never its path or query, which may carry a token). */
export function originOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return '(not a URL)';
  }
}
