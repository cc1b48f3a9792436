/**
 * Redaction: the guarantee that secrets never reach a log line, whatever the level.
 * Applied to every log record (message and metadata) by the logger's format.
 */
const SECRET_KEY = /(pass(word)?|passwd|secret|token|api[_-]?key|authorization|cookie|csrf|credential|private[_-]?key|^key$|_key$|signature|ticket|otp|totp|recovery)/i;
const MASK = '[redacted]';

/** Values that must never be printed, e.g. the settings' own secrets, registered at start. */
export class SecretRegistry {
  private readonly values = new Set<string>();

  add(value: string | undefined): void {
    if (value && value.length >= 6) this.values.add(value);
  }

  scrub(text: string): string {
    let out = text;
    for (const v of this.values) {
      if (out.includes(v)) out = out.split(v).join(MASK);
    }
    return out;
  }
}

const PATTERNS: Array<[RegExp, string]> = [
  // drizzle's "Failed query: … params: …" carries the statement's values (hashes, tokens, emails),
  // which may hold line breaks: masked up to the first stack frame or the end of the text
  [/(\bparams: )[\s\S]*?(?=\n\s+at |$)/g, `$1${MASK}`],
  // bcrypt hashes
  [/\$2[abxy]\$\d{2}\$[./A-Za-z0-9]{53}/g, MASK],
  // scheme://user:password@host → scheme://user:[redacted]@host
  [/([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*):[^\s@/]*@/gi, `$1:${MASK}@`],
  // Authorization values
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${MASK}`],
  // Herald API keys anywhere in text
  [/\bhk_[A-Za-z0-9_-]{8,}/g, `hk_${MASK}`],
  // key=value pairs in query strings, cookies and form bodies
  [/\b((?:[a-z_]*)(?:password|passwd|secret|token|api_key|apikey|svc_session|svc_csrf|svc_device|signature|code))=([^&;\s"]+)/gi, `$1=${MASK}`],
  // "password": "..." inside JSON text
  [/("(?:[a-z_]*)(?:password|secret|token|api_key|authorization|cookie)"\s*:\s*)"(?:[^"\\]|\\.)*"/gi, `$1"${MASK}"`],
];

export function redactText(text: string, registry?: SecretRegistry): string {
  let out = registry ? registry.scrub(text) : text;
  for (const [re, replacement] of PATTERNS) out = out.replace(re, replacement);
  return out;
}

export function redactValue(value: unknown, registry?: SecretRegistry, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return redactText(value, registry);
  if (value === null || typeof value !== 'object') return value;
  if (depth > 8 || seen.has(value)) return '[truncated]';
  seen.add(value);
  if (value instanceof Error) {
    const err: Record<string, unknown> = { name: value.name, message: redactText(value.message, registry) };
    if (value.stack) err.stack = redactText(value.stack, registry);
    const code = (value as { code?: unknown }).code;
    if (code !== undefined) err.code = code;
    return err;
  }
  if (Buffer.isBuffer(value)) return `[${value.length} bytes]`;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, registry, depth + 1, seen));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = redactField(k, v, registry, depth + 1, seen);
  return out;
}

/** One named field: masked whole when its name says it holds a secret, else redacted inside. */
export function redactField(
  key: string, value: unknown, registry?: SecretRegistry, depth = 0, seen = new WeakSet<object>(),
): unknown {
  const secretName = SECRET_KEY.test(key) && !/_(at|id|count|configured)$|^(configured|has_)/i.test(key);
  if (secretName && value !== null && value !== undefined && typeof value !== 'boolean' && typeof value !== 'number') {
    return MASK;
  }
  return redactValue(value, registry, depth, seen);
}
