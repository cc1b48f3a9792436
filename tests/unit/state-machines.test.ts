/**
 * The state machines of runs (runs/model.ts) and delivery attempts (channels/model.ts): their
 * terminal statuses have no exits, every status is reachable and (but for the terminal ones) can
 * end, and every status write of the store (infra/db/stores/status-writes.ts, used in the WHERE
 * clauses of the runs, run-engine, scheduling and channels repositories) is a row of the table
 * with the same from-set and to-set.
 */
import { stateMachine } from '../../src/core/state-machine.js';
import {
  FINISHED_STATUSES, RUN_STATES, RUN_STATUSES, RUN_TRANSITIONS, TERMINAL_STATUSES, fromStatuses, isFinished, type RunStatus,
} from '../../src/domain/runs/model.js';
import { ATTEMPT_STATES, ATTEMPT_STATUSES, ATTEMPT_TRANSITIONS } from '../../src/domain/channels/model.js';
import { ATTEMPT_WRITES, RUN_WRITES } from '../../src/infra/db/stores/status-writes.js';

/** Every status reachable from `start` by the machine's moves. */
function reachable<S extends string>(machine: { nextStatuses(s: S): S[] }, start: readonly S[]): Set<S> {
  const seen = new Set<S>(start);
  const queue = [...start];
  while (queue.length > 0) {
    for (const next of machine.nextStatuses(queue.shift()!)) {
      if (!seen.has(next)) { seen.add(next); queue.push(next); }
    }
  }
  return seen;
}

const sorted = (xs: Iterable<string>) => [...xs].sort();

describe('the run state machine', () => {
  it('has success, skipped and cancelled as its terminal statuses, with no exits', () => {
    expect(sorted(TERMINAL_STATUSES)).toEqual(['cancelled', 'skipped', 'success']);
    for (const s of TERMINAL_STATUSES) {
      expect(RUN_STATES.nextStatuses(s)).toEqual([]);
      for (const t of Object.values(RUN_TRANSITIONS)) expect(t.from as readonly RunStatus[]).not.toContain(s);
    }
  });

  it('reaches every status from a queued run, and every status can reach a terminal one', () => {
    expect(sorted(reachable(RUN_STATES, RUN_TRANSITIONS.queue.to))).toEqual(sorted(RUN_STATUSES));
    for (const s of RUN_STATUSES) {
      expect([...reachable(RUN_STATES, [s])].some((r) => TERMINAL_STATUSES.has(r))).toBe(true);
    }
  });

  it('allows the moves a run makes, and no others', () => {
    expect(RUN_STATES.canMove('pending', 'running')).toBe(true);
    expect(RUN_STATES.canMove('running', 'running')).toBe(true); // a lost worker's run taken again
    expect(RUN_STATES.canMove('pending', 'cancelled')).toBe(true);
    expect(RUN_STATES.canMove('partial', 'success')).toBe(true); // settled by a resend
    expect(RUN_STATES.canMove('pending', 'success')).toBe(false);
    expect(RUN_STATES.canMove('success', 'failed')).toBe(false);
    expect(RUN_STATES.canMove('cancelled', 'running')).toBe(false);
    expect(RUN_STATES.nextStatuses('pending')).toEqual(['running', 'failed', 'cancelled']);
  });

  it('calls finished what a worker ends a run with', () => {
    expect(sorted(FINISHED_STATUSES)).toEqual(sorted(RUN_TRANSITIONS.finish.to));
    expect(isFinished('pending')).toBe(false);
    expect(isFinished('running')).toBe(false);
    expect(isFinished('partial')).toBe(true);
  });

  it('gives each write its from-set', () => {
    expect(fromStatuses('lose')).toEqual(['pending', 'running']);
    expect(fromStatuses('cancelPending')).toEqual(['pending']);
  });

  it('is what the store writes: each write of the store is the row of the same name', () => {
    expect(RUN_WRITES).toEqual(RUN_TRANSITIONS);
  });
});

describe('the delivery attempt state machine', () => {
  it('has sent and preview (a test run\'s message, never sent) as its terminal statuses, with no exits', () => {
    expect(sorted(ATTEMPT_STATES.terminal)).toEqual(['preview', 'sent']);
    expect(ATTEMPT_STATES.nextStatuses('sent')).toEqual([]);
    expect(ATTEMPT_STATES.nextStatuses('preview')).toEqual([]);
  });

  it('reaches every status from a planned attempt (pending), and every status but preview can reach sent', () => {
    expect(ATTEMPT_TRANSITIONS.plan.to).toEqual(['pending']);
    expect(sorted(reachable(ATTEMPT_STATES, ATTEMPT_TRANSITIONS.plan.to))).toEqual(sorted(ATTEMPT_STATUSES));
    for (const s of ATTEMPT_STATUSES.filter((x) => x !== 'preview')) expect(reachable(ATTEMPT_STATES, [s]).has('sent')).toBe(true);
  });

  it('lets only a job take an attempt, and a failed one only through a retry or a person\'s resend', () => {
    expect(ATTEMPT_STATES.canMove('pending', 'sending')).toBe(true);
    expect(ATTEMPT_STATES.canMove('pending', 'sent')).toBe(false);
    expect(ATTEMPT_STATES.canMove('failed', 'sending')).toBe(true); // the retry schedule's job
    expect(ATTEMPT_STATES.canMove('failed', 'queued')).toBe(true);
    expect(ATTEMPT_STATES.canMove('sent', 'sending')).toBe(false);
  });

  it('is what the store writes: each write of the store is the row of the same name', () => {
    expect(ATTEMPT_WRITES).toEqual(ATTEMPT_TRANSITIONS);
  });
});

describe('stateMachine', () => {
  it('derives moves and terminal statuses from the transitions', () => {
    const door = stateMachine(['open', 'shut', 'gone'] as const, {
      close: { from: ['open'], to: ['shut'] },
      open: { from: ['shut'], to: ['open'] },
      remove: { from: ['open', 'shut'], to: ['gone'] },
    });
    expect(door.nextStatuses('open')).toEqual(['shut', 'gone']);
    expect(door.canMove('gone', 'open')).toBe(false);
    expect(sorted(door.terminal)).toEqual(['gone']);
    expect(door.fromStatuses('remove')).toEqual(['open', 'shut']);
  });
});
