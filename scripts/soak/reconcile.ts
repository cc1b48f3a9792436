/**
 * The soak's reckoning, from the store and the receiver once the fleet has settled: every due
 * slot of every scheduled report ran exactly once, every manual run ended (and none was made
 * twice), every delivery attempt is recorded sent, or failed with a reason, the receiver got
 * every sent one (duplicates by webhook-id counted), memory of every process flat.
 */
import type postgres from 'postgres';
import { flatness, type Life } from './fleet.js';

export interface Check {
  name: string;
  figure: string;
  ok: boolean;
}

export interface SoakFacts {
  scheduled: Array<{ id: string; createdAt: Date }>;
  manualReports: string[];
  /** Run ids the API accepted (202) for the manual runs the soak asked for. */
  manualAccepted: Set<string>;
  /** Manual runs asked for that no API process accepted (after retrying for long). */
  manualRefused: number;
  /** When the scheduled reports were paused: slots due up to `requiredUntil` must have run. */
  requiredUntil: Date;
  pausedAt: Date;
  received: Map<string, number>;
  refusedOnPurpose: Set<string>;
  lives: Life[];
  /** When the load began (ms since the soak's start): memory before it is start-up. */
  loadFrom: number;
  unexpectedExits: string[];
}

const MINUTE = 60_000;

/** The minute slots strictly after `from` and at or before `until`. */
export function minuteSlots(from: Date, until: Date): number[] {
  const out: number[] = [];
  for (let t = Math.floor(from.getTime() / MINUTE) * MINUTE + MINUTE; t <= until.getTime(); t += MINUTE) out.push(t);
  return out;
}

export async function reconcile(sql: postgres.Sql, f: SoakFacts): Promise<Check[]> {
  const checks: Check[] = [];
  const add = (name: string, figure: string, ok: boolean) => checks.push({ name, figure, ok });

  // Scheduled slots.
  const ids = f.scheduled.map((r) => r.id);
  const slotRows = await sql<Array<{ report_id: string; slot: Date; n: number }>>`
    select report_id, slot, count(*)::int as n from runs where trigger = 'schedule' and report_id = any(${ids}::uuid[]) group by report_id, slot`;
  const have = new Map<string, number>();
  for (const r of slotRows) have.set(`${r.report_id}@${r.slot.getTime()}`, r.n);
  let due = 0;
  let missing = 0;
  const missed: string[] = [];
  for (const r of f.scheduled) {
    for (const t of minuteSlots(r.createdAt, f.requiredUntil)) {
      due += 1;
      if (!have.has(`${r.id}@${t}`)) { missing += 1; if (missed.length < 5) missed.push(new Date(t).toISOString()); }
    }
  }
  const twice = slotRows.filter((r) => r.n > 1).length;
  const offMinute = slotRows.filter((r) => r.slot.getTime() % MINUTE !== 0 || r.slot.getTime() > f.pausedAt.getTime()).length;
  add('scheduled slots due, each run once', `${due} due, ${slotRows.length} runs made (with those of the last 20 s before the pause, not required), ${missing} missing${missed.length ? ` (${missed.join(', ')}…)` : ''}, ${twice} twice, ${offMinute} off the schedule`,
    missing === 0 && twice === 0 && offMinute === 0);

  // Every run ended; how they ended.
  const allReports = [...ids, ...f.manualReports];
  const byStatus = await sql<Array<{ trigger: string; status: string; error_code: string | null; n: number }>>`
    select trigger, status, error_code, count(*)::int as n from runs where report_id = any(${allReports}::uuid[]) group by 1, 2, 3 order by 1, 2, 3`;
  const stuck = byStatus.filter((r) => r.status === 'pending' || r.status === 'running').reduce((a, r) => a + r.n, 0);
  const failed = byStatus.filter((r) => r.status === 'failed' || r.status === 'partial');
  add('runs ended (none pending or running)', byStatus.map((r) => `${r.trigger} ${r.status}${r.error_code ? ` (${r.error_code})` : ''}: ${r.n}`).join('; '), stuck === 0);
  add('runs failed', failed.length === 0 ? 'none' : failed.map((r) => `${r.status} ${r.error_code ?? ''}: ${r.n}`).join('; '), failed.length === 0);

  // Manual runs: every accepted one exists and ended; none made twice (Idempotency-Key on retries).
  const manual = await sql<Array<{ id: string; status: string; attempts: number }>>`
    select id, status, attempts from runs where trigger = 'manual' and report_id = any(${f.manualReports}::uuid[])`;
  const inStore = new Set(manual.map((r) => r.id));
  const lost = [...f.manualAccepted].filter((id) => !inStore.has(id)).length;
  const extra = manual.filter((r) => !f.manualAccepted.has(r.id)).length;
  const restarted = manual.filter((r) => r.attempts > 1).length;
  add('manual runs accepted, each made once and ended', `${f.manualAccepted.size} accepted, ${manual.length} in the store, ${lost} lost, ${extra} extra, ${restarted} started again after a lost worker; ${f.manualRefused} not accepted`,
    lost === 0 && extra === 0);

  // Deliveries: one attempt per successful run, each sent or failed with a reason.
  const attempts = await sql<Array<{ id: string; status: string; code: string | null; sends: number }>>`
    select a.id, a.status, a.error->>'code' as code, a.sends from delivery_attempts a join runs r on r.id = a.run_id
    where r.report_id = any(${allReports}::uuid[])`;
  const [{ without }] = await sql<[{ without: number }]>`
    select count(*)::int as without from runs r where r.report_id = any(${allReports}::uuid[]) and r.status = 'success' and r.deliver
      and not exists (select 1 from delivery_attempts a where a.run_id = r.id)`;
  const sent = attempts.filter((a) => a.status === 'sent');
  const failedWithReason = attempts.filter((a) => a.status === 'failed' && a.code);
  const unsettled = attempts.length - sent.length - failedWithReason.length;
  add('deliveries recorded sent, or failed with a reason', `${attempts.length} attempts: ${sent.length} sent, ${failedWithReason.length} failed (${[...new Set(failedWithReason.map((a) => a.code))].join(', ') || 'none'}), ${unsettled} neither; ${without} successful runs without an attempt`,
    unsettled === 0 && without === 0);

  // The receiver: every sent attempt arrived; duplicates by webhook-id (beyond the refused first try).
  let notReceived = 0;
  let duplicates = 0;
  let duplicated = 0;
  for (const a of sent) {
    const n = f.received.get(a.id) ?? 0;
    if (n === 0) notReceived += 1;
    const extraSends = n - 1 - (f.refusedOnPurpose.has(a.id) ? 1 : 0);
    if (extraSends > 0) { duplicates += extraSends; duplicated += 1; }
  }
  const known = new Set(attempts.map((a) => a.id));
  const unknown = [...f.received.keys()].filter((id) => !known.has(id)).length;
  add('receiver got every sent delivery', `${f.received.size} webhook-ids received (${[...f.received.values()].reduce((a, b) => a + b, 0)} requests, ${f.refusedOnPurpose.size} refused once on purpose); ${notReceived} sent but never received; ${duplicates} duplicate requests of ${duplicated} ids; ${unknown} unknown ids`,
    notReceived === 0 && unknown === 0);

  // Memory.
  let judged = 0;
  const grew: string[] = [];
  let worst = 0;
  for (const life of f.lives) {
    const m = flatness(life, f.loadFrom);
    if (!m) continue;
    judged += 1;
    worst = Math.max(worst, m.ratio);
    if (m.ratio > 1.2) grew.push(`${life.name} (pid ${life.pid}): ${(m.q2 / 2 ** 20).toFixed(0)} → ${(m.q4 / 2 ** 20).toFixed(0)} MiB`);
  }
  add('memory flat (last quarter median ≤ 1.2 × second quarter)', `${judged} of ${f.lives.length} process lifetimes long enough to judge (3 min under load); worst ratio ${worst.toFixed(2)}${grew.length ? `; grew: ${grew.join(', ')}` : ''}`,
    grew.length === 0);
  add('no process exited by itself', f.unexpectedExits.length === 0 ? 'none' : f.unexpectedExits.join('; '), f.unexpectedExits.length === 0);
  return checks;
}

/** One row per process lifetime: when it lived, how it ended, its memory. */
export function memoryTable(lives: Life[], loadFrom: number): string[] {
  return lives.map((l) => {
    const m = flatness(l, loadFrom);
    const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
    const span = `${(l.startedAt / 1000).toFixed(0)}–${l.endedAt === undefined ? 'end' : (l.endedAt / 1000).toFixed(0)} s`;
    return `${l.name.padEnd(12)} pid ${String(l.pid).padEnd(8)} ${span.padEnd(14)} ${(l.end ?? 'running').padEnd(8)} `
      + (m ? `RSS q2 ${mib(m.q2)}, q4 ${mib(m.q4)}, ratio ${m.ratio.toFixed(2)}, peak ${mib(m.peak)}` : `${l.samples.length} samples (too short to judge)`);
  });
}
