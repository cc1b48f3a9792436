/**
 * What a run's parts say, as a person reads them: a step's duration and what it added, and the
 * condition as a sentence. Pure, so the texts are tested without a browser; `t` brings the words.
 */

type Translate = (key: string, vars?: Record<string, string | number>) => string;
/** The parts of the contract's RunStep and Condition read here (structural: no import of the SDK, so unit tests load this alone). */
export interface RunStep { started_at: string; finished_at: string | null; detail?: Record<string, unknown> }
export interface Condition { type: 'rows_exist' | 'row_count' | 'value' | 'changed'; op?: string; column?: string; value?: unknown }

/** A finished step's duration in ms; null while it runs (or when its times do not make sense). */
export function stepDuration(step: Pick<RunStep, 'started_at' | 'finished_at'>): number | null {
  if (!step.finished_at) return null;
  const ms = Date.parse(step.finished_at) - Date.parse(step.started_at);
  return Number.isFinite(ms) && ms >= 0 ? ms : null;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** What a step added (rows, condition met, file size, deliveries), as short phrases. */
export function stepDetail(step: RunStep, t: Translate): string[] {
  const d = (step.detail ?? {}) as Record<string, unknown>;
  const out: string[] = [];
  const rows = num(d.rows);
  if (rows !== undefined) out.push(t('runs.step.rows', { count: rows }));
  const wait = num(d.wait_ms);
  if (wait !== undefined && wait > 0) out.push(t('runs.step.wait', { ms: wait }));
  if (typeof d.met === 'boolean') out.push(t(d.met ? 'runs.step.met' : 'runs.step.notMet'));
  const bytes = num(d.bytes);
  if (bytes !== undefined) out.push(formatBytes(bytes));
  for (const key of ['sent', 'failed', 'previewed'] as const) {
    const n = num(d[key]);
    if (n !== undefined && n > 0) out.push(t(`runs.step.${key}`, { count: n }));
  }
  return out;
}

/** 512 B, 1.5 KB, 3.2 MB (powers of 1024). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit += 1; }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

const show = (v: unknown): string => (v === null || v === undefined ? 'null' : typeof v === 'string' ? `"${v}"` : String(v));

/** The condition as a sentence: "The number of rows is greater than 10". */
export function describeCondition(condition: Condition | null, t: Translate): string {
  if (!condition) return t('runs.condition.none');
  const op = condition.op ? t(`runs.op.${condition.op}`) : t('runs.op.eq');
  switch (condition.type) {
    case 'rows_exist': return t('runs.condition.rowsExist');
    case 'changed': return t('runs.condition.changed');
    case 'row_count': return t('runs.condition.rowCount', { op, value: show(condition.value) });
    case 'value':
      if (condition.op === 'is_null' || condition.op === 'is_not_null') return t('runs.condition.valueUnary', { column: condition.column ?? '?', op });
      return t('runs.condition.value', { column: condition.column ?? '?', op, value: show(condition.value) });
    default: return String((condition as { type: string }).type);
  }
}

/** A result cell as text: null shown as such, everything else as the API gave it. */
export function cellText(value: string | number | boolean | null): string {
  if (value === null) return 'NULL';
  return String(value);
}
