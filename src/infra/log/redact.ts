/**
 * Redaction: the guarantee that secrets never reach a log line, whatever the level.
 * Applied to every log record (message and metadata) by the logger's format.
 */
const SECRET_KEY = /(pass(word)?|passwd|secret|token|api[_-]?key|authorization|cookie|csrf|credential|private[_-]?key|^key$|_key$|signature|ticket|otp|totp|recovery|svc_session|svc_device)/i;
/** Names that describe a secret without holding it: password_changed_at, api_key_id, token_count… */
const HARMLESS_KEY = /[_-](at|id|ids|count|configured)$|^(configured|has_)/i;
/** A webhook's URL is its credential (its path is the secret): webhook, webhook_url, slack_webhook_url, webhookUrl… */
const WEBHOOK_KEY = /webhooks?(?:[_-]?(?:url|uri|endpoint))?$/i;
/** Inside a webhook's settings, the fields that hold its URL. */
const URL_KEY = /^(?:url|uri|href|endpoint|target)$/i;
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

/**
 * `key=value`, `key: value` and `key":"value"` in free text where the key holds a secret word anywhere
 * (aws_secret_access_key, X-Api-Key, refresh_token, svc_session…); the value is quoted, or runs up to
 * a space, &, ; or quote. Only such keys match, so that no other pair swallows the text after it.
 */
const SECRET_WORDS = 'pass(?:word|wd|phrase)|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credential|signature'
  + '|svc_session|svc_csrf|svc_device|webhook[_-]?ur[il]|(?:totp|otp|recovery|auth)[_-]?codes?|ticket';
// A bare `code` is secret only as a query parameter (OAuth's ?code=…); `error code: 23505` is not.
const KEY_VALUE = new RegExp(
  `(?<![\\w.-])([\\w.-]{0,64}?(?:${SECRET_WORDS})[\\w.-]{0,64}|code(?=[ \\t]*=))`
  + `(["']?[ \\t]*[:=][ \\t]*)("(?:[^"\\\\\\n]|\\\\.)*"|'(?:[^'\\\\\\n]|\\\\.)*'|[^\\s&;"'{[][^\\s&;"]*)`,
  'gi',
);
/** Authorization schemes kept readable before the masked credentials. */
const AUTH_SCHEME = /^(?:bearer|basic|token|digest|negotiate|ntlm|apikey|dpop|hawk)$/i;

function maskKeyValue(match: string, key: string, sep: string, value: string): string {
  if (HARMLESS_KEY.test(key) || /^["']?(?:true|false|null|undefined|\[redacted\])["']?$/i.test(value)) {
    // not a secret itself, but its value may hold one (token_id=a,token=b)
    return key + sep + value.replace(KEY_VALUE, maskKeyValue);
  }
  const quote = /^["']/.test(value) ? value[0] : '';
  return `${key}${sep}${quote}${MASK}${quote}`;
}

type Replacement = string | ((match: string, ...groups: string[]) => string);

const PATTERNS: Array<[RegExp, Replacement]> = [
  // drizzle's "Failed query: … params: …" carries the statement's values (hashes, tokens, emails),
  // which may hold line breaks: masked up to the first stack frame or the end of the text
  [/(\bparams: )[\s\S]*?(?=\n\s+at |$)/g, `$1${MASK}`],
  // bcrypt hashes
  [/\$2[abxy]\$\d{2}\$[./A-Za-z0-9]{53}/g, MASK],
  // scheme://user:password@host → scheme://user:[redacted]@host (a scheme starts at a boundary: linear time)
  [/((?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,31}:\/\/[^\s:/?#@]*):[^\s@/?#]*@/gi, `$1:${MASK}@`],
  // scheme://token@host (a user part alone is often a token) → scheme://[redacted]@host
  [/((?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,31}:\/\/)[^\s:/?#@[]+@/gi, `$1${MASK}@`],
  // "password": "..." inside JSON text (the opening quote may be cut off)
  [/((?<![\w-])"?[a-z_-]*(?:password|secret|token|api_key|authorization|cookie)"\s*:\s*)"(?:[^"\\]|\\.)*"/gi, `$1"${MASK}"`],
  // Authorization headers in text: a known scheme stays, the rest of the value (one or two words) is masked
  [/\b((?:proxy-)?authorization[ \t]*[:=][ \t]*)(?:([A-Za-z][\w-]*)[ \t]+)?[^\s,;"']+/gi,
    (_m: string, head: string, scheme?: string) => `${head}${scheme && AUTH_SCHEME.test(scheme) ? `${scheme} ` : ''}${MASK}`],
  // Authorization values
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${MASK}`],
  // Herald API keys anywhere in text ("hk_" + 43 base64url characters), even glued to a word
  [/\bhk_[A-Za-z0-9_-]{8,}|hk_[A-Za-z0-9_-]{32,}/g, `hk_${MASK}`],
  // key=value, key: value and key":"value" in query strings, cookies, forms, headers and JSON-ish text
  [KEY_VALUE, maskKeyValue],
];

/**
 * Text none of the patterns above can match: letters, digits and _ . / { } - only, so no space,
 * quote, `:`, `=`, `$` or `@` (no pair, URL, header, hash or JSON field), and no `hk_` (an API key
 * may be glued to a word). Most fields of a log line are such text: ids, routes, methods,
 * operation names; they skip the nine patterns (the registered secrets are still scrubbed).
 */
const PLAIN = /^[A-Za-z0-9_./{}-]*$/;

export function redactText(text: string, registry?: SecretRegistry): string {
  let out = registry ? registry.scrub(text) : text;
  if (PLAIN.test(out) && !out.includes('hk_')) return out;
  for (const [re, replacement] of PATTERNS) {
    out = typeof replacement === 'string' ? out.replace(re, replacement) : out.replace(re, replacement);
  }
  return out;
}

export function redactValue(
  value: unknown, registry?: SecretRegistry, depth = 0, seen = new WeakSet<object>(), inWebhook = false,
): unknown {
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
  if (Array.isArray(value)) return value.map((v) => redactValue(v, registry, depth + 1, seen, inWebhook));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = redactField(k, v, registry, depth + 1, seen, inWebhook);
  return out;
}

/**
 * One named field: masked whole when its name says it holds a secret, else redacted inside.
 * A webhook-named field's URLs are masked whole, and so are the url-like fields of its settings.
 */
export function redactField(
  key: string, value: unknown, registry?: SecretRegistry, depth = 0, seen = new WeakSet<object>(), inWebhook = false,
): unknown {
  const secretName = (SECRET_KEY.test(key) && !HARMLESS_KEY.test(key)) || (inWebhook && URL_KEY.test(key));
  if (secretName && value !== null && value !== undefined && typeof value !== 'boolean' && typeof value !== 'number') {
    return MASK;
  }
  const webhookName = WEBHOOK_KEY.test(key);
  if (webhookName && typeof value === 'string') return MASK;
  if (webhookName && Array.isArray(value)) {
    return value.map((v) => (typeof v === 'string' ? MASK : redactValue(v, registry, depth + 1, seen, true)));
  }
  return redactValue(value, registry, depth, seen, inWebhook || webhookName);
}
