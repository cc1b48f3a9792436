/**
 * A state machine as one table: named transitions, each with the statuses it leaves and the
 * statuses it may reach. What follows from the table (where a status may go, which statuses are
 * terminal) is derived here, so an aggregate with statuses states them once.
 */
export interface Transition<S extends string> {
  readonly from: readonly S[];
  readonly to: readonly S[];
}

export interface StateMachine<S extends string, T extends Record<string, Transition<S>>> {
  readonly statuses: readonly S[];
  readonly transitions: T;
  /** The statuses transition `name` leaves: the WHERE clause of its write. */
  fromStatuses<N extends keyof T>(name: N): T[N]['from'];
  /** The statuses `status` may move to (itself included where a transition allows it). */
  nextStatuses(status: S): S[];
  /** Whether some transition moves `from` to `to`. */
  canMove(from: S, to: S): boolean;
  /** Statuses no transition leaves: there a record never changes again. */
  readonly terminal: ReadonlySet<S>;
}

export function stateMachine<S extends string, T extends Record<string, Transition<S>>>(statuses: readonly S[], transitions: T): StateMachine<S, T> {
  const rows: ReadonlyArray<Transition<S>> = Object.values(transitions);
  const canMove = (from: S, to: S) => rows.some((t) => t.from.includes(from) && t.to.includes(to));
  const nextStatuses = (status: S) => statuses.filter((to) => canMove(status, to));
  return {
    statuses,
    transitions,
    fromStatuses: (name) => transitions[name]!.from,
    nextStatuses,
    canMove,
    terminal: new Set(statuses.filter((s) => nextStatuses(s).length === 0)),
  };
}
