/**
 * The functions a SQL statement calls, read by a lexer of the dialect (not a parser: every
 * statement the server accepts lexes, so the check never depends on how much grammar a parser
 * knows). A call is a name — an unquoted word, a quoted identifier, the last part of a qualified
 * name — followed, after whitespace and comments, by "(". Text inside string literals and comments
 * is not code and is skipped, except MySQL's executable comments (/*! … *\/, /*M! … *\/), whose
 * content the server runs.
 *
 * Where the server's own settings change how a text lexes (PostgreSQL standard_conforming_strings,
 * MySQL NO_BACKSLASH_ESCAPES and ANSI_QUOTES), callers lex it every way (`variants`) and refuse
 * what any reading calls: one of them is the server's.
 *
 * What a lexer cannot see: functions called by views, functions or rules defined in the database.
 * Those follow the privileges of the database user Herald signs in as (README: a read-only user).
 */
import { DomainError } from '../../core/errors.js';

export type Dialect = 'postgres' | 'mysql';

export interface LexOptions {
  dialect: Dialect;
  /**
   * A backslash escapes the next character inside '…' (PostgreSQL with standard_conforming_strings
   * off; MySQL unless NO_BACKSLASH_ESCAPES). PostgreSQL's E'…' always has backslash escapes.
   */
  backslashEscapes: boolean;
  /** MySQL's ANSI_QUOTES: "…" is an identifier, not a string (PostgreSQL: always an identifier). */
  doubleQuotedIdentifiers: boolean;
}

export interface Call {
  /** Lowercased (ASCII letters only, as the servers fold unquoted names). */
  name: string;
  /** Offset of the name in the text. */
  at: number;
}

/** Every reading of a text the server's settings allow, per dialect. */
export function variants(dialect: Dialect): LexOptions[] {
  if (dialect === 'postgres') {
    return [false, true].map((backslashEscapes) => ({ dialect, backslashEscapes, doubleQuotedIdentifiers: true }));
  }
  return [true, false].flatMap((backslashEscapes) => [false, true].map((doubleQuotedIdentifiers) => ({ dialect, backslashEscapes, doubleQuotedIdentifiers })));
}

type Token = { kind: 'name'; names: string[]; at: number } | { kind: 'open' } | { kind: 'other' };

const lowerAscii = (s: string): string => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
const isSpace = (c: string): boolean => c <= ' ' && c !== '';
const WORD_CHAR = /[A-Za-z0-9_$\u0080-\uffff]/;
const isWordChar = (c: string | undefined): boolean => c !== undefined && WORD_CHAR.test(c);
const DOLLAR_TAG = /^\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/;

/**
 * The names an unquoted word may stand for: itself, and what follows a digit or "$" inside it
 * (the servers split `1pg_sleep` or `$1load_file` differently across versions; reading every split
 * costs nothing but a refusal of very odd names).
 */
function wordNames(word: string): string[] {
  const lower = lowerAscii(word);
  const names = [lower];
  for (let i = 1; i < lower.length; i += 1) {
    if (/[0-9$]/.test(lower[i - 1]!) && !/[0-9$]/.test(lower[i]!)) names.push(lower.slice(i));
  }
  return names;
}

/** The end (exclusive) of a quoted run opened at `start` (the quote); doubled quotes and, optionally, backslashes escape. */
function endOfQuoted(sql: string, start: number, quote: string, backslash: boolean): number {
  let j = start + 1;
  while (j < sql.length) {
    const c = sql[j]!;
    if (backslash && c === '\\') { j += 2; continue; }
    if (c === quote) {
      if (sql[j + 1] === quote) { j += 2; continue; }
      return j + 1;
    }
    j += 1;
  }
  return sql.length;
}

/** The text of a quoted identifier (without its quotes, doubled quotes undone). */
function unquote(run: string, quote: string): string {
  const closed = run.length >= 2 && run.endsWith(quote) ? run.slice(1, -1) : run.slice(1);
  return closed.split(quote + quote).join(quote);
}

/** PostgreSQL U&"…" identifiers: \XXXX and \+XXXXXX escapes (or another escape character given by UESCAPE). */
function decodeUnicodeEscapes(text: string, escape: string): string {
  let out = '';
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (c !== escape) { out += c; continue; }
    if (text[i + 1] === escape) { out += escape; i += 1; continue; }
    const long = text[i + 1] === '+';
    const hex = long ? text.slice(i + 2, i + 8) : text.slice(i + 1, i + 5);
    if (!/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== (long ? 6 : 4)) { out += c; continue; }
    const code = Number.parseInt(hex, 16);
    out += code <= 0x10ffff ? String.fromCodePoint(code) : c;
    i += long ? 7 : 4;
  }
  return out;
}

/** Whitespace and comments from `i` on (PostgreSQL rules); the offset after them. */
function skipPgTrivia(sql: string, i: number): number {
  for (;;) {
    while (i < sql.length && isSpace(sql[i]!)) i += 1;
    if (sql.startsWith('--', i)) {
      while (i < sql.length && sql[i] !== '\n' && sql[i] !== '\r') i += 1;
    } else if (sql.startsWith('/*', i)) {
      i = endOfPgBlockComment(sql, i);
    } else {
      return i;
    }
  }
}

/** PostgreSQL block comments nest. */
function endOfPgBlockComment(sql: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < sql.length) {
    if (sql.startsWith('/*', i)) { depth += 1; i += 2; continue; }
    if (sql.startsWith('*/', i)) {
      depth -= 1;
      i += 2;
      if (depth === 0) return i;
      continue;
    }
    i += 1;
  }
  return sql.length;
}

function* pgTokens(sql: string, options: LexOptions): Generator<Token> {
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (isSpace(c)) { i += 1; continue; }
    if (c === '-' && sql[i + 1] === '-') { i = skipPgTrivia(sql, i); continue; }
    if (c === '/' && sql[i + 1] === '*') { i = endOfPgBlockComment(sql, i); continue; }
    if (c === '(') { yield { kind: 'open' }; i += 1; continue; }
    if (c === "'") { i = endOfQuoted(sql, i, "'", options.backslashEscapes); yield { kind: 'other' }; continue; }
    if (c === '"') {
      const end = endOfQuoted(sql, i, '"', false);
      yield { kind: 'name', names: [lowerAscii(unquote(sql.slice(i, end), '"'))], at: i };
      i = end;
      continue;
    }
    if (c === '$') {
      const tag = DOLLAR_TAG.exec(sql.slice(i, i + 128));
      if (tag) {
        const close = sql.indexOf(tag[0], i + tag[0].length);
        i = close < 0 ? sql.length : close + tag[0].length;
        yield { kind: 'other' };
        continue;
      }
      if (/[0-9]/.test(sql[i + 1] ?? '')) {
        // $1 — a parameter; read what trails it like a word (see wordNames).
        let j = i + 1;
        while (isWordChar(sql[j])) j += 1;
        yield { kind: 'name', names: wordNames(sql.slice(i + 1, j)).slice(1), at: i };
        i = j;
        continue;
      }
      yield { kind: 'other' };
      i += 1;
      continue;
    }
    if (isWordChar(c)) {
      let j = i;
      while (isWordChar(sql[j])) j += 1;
      const word = sql.slice(i, j);
      const lower = lowerAscii(word);
      // E'…' (backslash escapes always), B'…', X'…', N'…' (standard quoting), U&'…' / U&"…".
      if (sql[j] === "'" && (lower === 'e' || lower === 'b' || lower === 'x' || lower === 'n')) {
        i = endOfQuoted(sql, j, "'", lower === 'e' || options.backslashEscapes);
        yield { kind: 'other' };
        continue;
      }
      if (lower === 'u' && sql[j] === '&' && (sql[j + 1] === "'" || sql[j + 1] === '"')) {
        const quote = sql[j + 1]!;
        const end = endOfQuoted(sql, j + 1, quote, false);
        const body = unquote(sql.slice(j + 1, end), quote);
        let next = skipPgTrivia(sql, end);
        let escape = '\\';
        const uescape = /^uescape/i.exec(sql.slice(next, next + 7));
        if (uescape && !isWordChar(sql[next + 7])) {
          const quoteAt = skipPgTrivia(sql, next + 7);
          if (sql[quoteAt] === "'") {
            const escEnd = endOfQuoted(sql, quoteAt, "'", false);
            escape = unquote(sql.slice(quoteAt, escEnd), "'") || escape;
            next = escEnd;
          }
        }
        if (quote === '"') {
          // Read both ways: as decoded, and as written (an escape the decoder got wrong must not hide a name).
          yield { kind: 'name', names: [...new Set([lowerAscii(decodeUnicodeEscapes(body, escape)), lowerAscii(body)])], at: i };
        } else {
          yield { kind: 'other' };
        }
        i = uescape ? next : end;
        continue;
      }
      yield { kind: 'name', names: wordNames(word), at: i };
      i = j;
      continue;
    }
    yield { kind: 'other' };
    i += 1;
  }
}

function* mysqlTokens(sql: string, options: LexOptions): Generator<Token> {
  let i = 0;
  let executable = false; // inside /*! … */: its text is code
  while (i < sql.length) {
    const c = sql[i]!;
    if (isSpace(c)) { i += 1; continue; }
    // "--" starts a comment only when followed by a space or control character (else: two minus signs).
    if (c === '#' || (c === '-' && sql[i + 1] === '-' && (i + 2 >= sql.length || isSpace(sql[i + 2]!)))) {
      while (i < sql.length && sql[i] !== '\n') i += 1;
      continue;
    }
    if (c === '/' && sql[i + 1] === '*') {
      const exec = /^\/\*(?:!|M!)[0-9]{0,6}/.exec(sql.slice(i, i + 12));
      if (exec) { executable = true; i += exec[0].length; continue; }
      const close = sql.indexOf('*/', i + 2);
      i = close < 0 ? sql.length : close + 2;
      continue;
    }
    if (executable && c === '*' && sql[i + 1] === '/') { executable = false; i += 2; continue; }
    if (c === '(') { yield { kind: 'open' }; i += 1; continue; }
    if (c === "'") { i = endOfQuoted(sql, i, "'", options.backslashEscapes); yield { kind: 'other' }; continue; }
    if (c === '"') {
      if (options.doubleQuotedIdentifiers) {
        const end = endOfQuoted(sql, i, '"', false);
        yield { kind: 'name', names: [lowerAscii(unquote(sql.slice(i, end), '"'))], at: i };
        i = end;
      } else {
        i = endOfQuoted(sql, i, '"', options.backslashEscapes);
        yield { kind: 'other' };
      }
      continue;
    }
    if (c === '`') {
      const end = endOfQuoted(sql, i, '`', false);
      yield { kind: 'name', names: [lowerAscii(unquote(sql.slice(i, end), '`'))], at: i };
      i = end;
      continue;
    }
    if (isWordChar(c)) {
      let j = i;
      while (isWordChar(sql[j])) j += 1;
      yield { kind: 'name', names: wordNames(sql.slice(i, j)), at: i };
      i = j;
      continue;
    }
    yield { kind: 'other' };
    i += 1;
  }
}

/** The functions the statement calls, in order, as read under `options`. */
export function calledFunctions(sql: string, options: LexOptions): Call[] {
  const calls: Call[] = [];
  let previous: Token | null = null;
  for (const token of options.dialect === 'postgres' ? pgTokens(sql, options) : mysqlTokens(sql, options)) {
    if (token.kind === 'open' && previous?.kind === 'name') {
      for (const name of previous.names) calls.push({ name, at: previous.at });
    }
    previous = token;
  }
  return calls;
}

/** A family of functions a connector refuses, and why (completes "<name> …; Herald does not run it"). */
export interface DeniedFunctions {
  /** Names, lowercase; a trailing or inner "*" stands for any run of name characters. */
  names: readonly string[];
  why: string;
}

export interface DenyList {
  /** The first denied call under any reading of the text, or null. */
  find(sql: string): { name: string; why: string } | null;
}

export function denyList(dialect: Dialect, families: readonly DeniedFunctions[]): DenyList {
  const exact = new Map<string, string>();
  const patterns: Array<{ re: RegExp; why: string }> = [];
  for (const family of families) {
    for (const name of family.names) {
      if (name.includes('*')) {
        const source = name.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[a-z0-9_$]*');
        patterns.push({ re: new RegExp(`^${source}$`), why: family.why });
      } else {
        exact.set(name, family.why);
      }
    }
  }
  const whyOf = (name: string): string | undefined => exact.get(name) ?? patterns.find((p) => p.re.test(name))?.why;
  const readings = variants(dialect);
  return {
    find(sql) {
      for (const reading of readings) {
        for (const call of calledFunctions(sql, reading)) {
          const why = whyOf(call.name);
          if (why) return { name: call.name, why };
        }
      }
      return null;
    },
  };
}

/** Throws query.forbidden_function, naming the function, when the statement calls one of the list. */
export function refuseDeniedCalls(list: DenyList, sql: string): void {
  const found = list.find(sql);
  if (found) throw new DomainError('query.forbidden_function', `${found.name} ${found.why}; Herald does not run it`);
}
