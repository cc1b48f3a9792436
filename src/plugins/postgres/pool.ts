/**
 * The connections of one session: at most limits.poolSize postgres.js clients of one connection
 * each, and each connection attempt opens exactly one socket.
 *
 * Why not one postgres.js pool (max: poolSize): postgres.js 3.4 opens a new socket at once, with
 * no backoff and no end, when the server closes one before the handshake is done (its connect
 * timeout restarts with every socket), and a reserve() that failed stays queued in the pool and
 * is tried again whenever one of its connections closes. A peer that accepts and closes thus got
 * tens of thousands of connections a minute, and a saved connection's pool went on for good.
 *
 * Here each client has a socket factory: its first socket is the connection; a later one is
 * allowed only while that socket is open (postgres.js's cancel requests); any other (a
 * reconnect) is refused, which fails the reserve() with CONNECTION_CLOSED. A client whose
 * attempt failed, or whose connection has closed (idle timeout, server gone), is ended and never
 * used again: the next reserve() makes a new one, which is the next single attempt.
 *
 * A connection idle for longer than `retireIdleMs` (50 s, below the client's 60 s idle_timeout)
 * is ended instead of handed out: one taken just as postgres.js's idle timer closed it failed
 * its run with CONNECTION_CLOSED (the soak's runs every minute met that timeout exactly).
 */
import net from 'node:net';
import type { ConnectionConfig, ConnectorLimits } from '../../domain/plugins/connector.js';
import { createClient, type PgSql } from './client.js';

/** A reserved connection; `server`: the parameters its server reported (server_version, …), once connected. */
export type Reserved = Awaited<ReturnType<PgSql['reserve']>> & { readonly server?: Readonly<Record<string, string>> };

export interface PgPool {
  /** A connection of its own (opened if none is idle); give it back with release(). */
  reserve(): Promise<Reserved>;
  end(timeoutSeconds: number): Promise<void>;
}

interface Slot {
  sql: PgSql;
  /** The connection's socket: the first the factory opened. */
  main: net.Socket | null;
  dead: boolean;
  /** When it was last given back (Date.now()). */
  idleSince: number;
}

/** Idle connections older than this are ended, not reused: below client.ts's idle_timeout (60 s). */
export const RETIRE_IDLE_MS = 50_000;

const noop = (): void => undefined;

function closedEarly(): Error {
  return Object.assign(new Error('the server closed the connection before it was ready'), { code: 'CONNECTION_CLOSED' });
}

export function createPgPool(config: ConnectionConfig, limits: ConnectorLimits, retireIdleMs = RETIRE_IDLE_MS): PgPool {
  const max = Math.max(1, limits.poolSize);
  const slots = new Set<Slot>();
  const idle: Slot[] = [];
  const waiting: Array<() => void> = [];
  let ended = false;

  const openSocket = (slot: Slot): net.Socket => {
    if (slot.dead || (slot.main && slot.main.destroyed)) throw closedEarly();
    const socket = net.connect({ host: config.host, port: config.port });
    // postgres.js adds its own listeners as soon as it has the socket; until then nothing is lost.
    socket.on('error', noop);
    slot.main ??= socket;
    return socket;
  };

  const newSlot = (): Slot => {
    const slot: Slot = { sql: null as unknown as PgSql, main: null, dead: false, idleSince: Date.now() };
    slot.sql = createClient(config, { ...limits, poolSize: 1 }, () => openSocket(slot));
    slots.add(slot);
    return slot;
  };

  const wakeOne = (): void => { waiting.shift()?.(); };

  const discard = (slot: Slot): void => {
    if (slot.dead) return;
    slot.dead = true;
    slots.delete(slot);
    void slot.sql.end({ timeout: 0 }).catch(noop);
    wakeOne();
  };

  const alive = (slot: Slot): boolean => !slot.dead && slot.main !== null && !slot.main.destroyed;

  /** A slot to use now: an idle one whose connection is open, or a new one; null when all are taken. */
  const take = (): Slot | null => {
    for (let slot = idle.pop(); slot; slot = idle.pop()) {
      if (alive(slot) && Date.now() - slot.idleSince <= retireIdleMs) return slot;
      discard(slot);
    }
    return slots.size < max ? newSlot() : null;
  };

  const use = async (slot: Slot): Promise<Reserved> => {
    let conn: Reserved;
    try {
      conn = await slot.sql.reserve();
    } catch (err) {
      discard(slot);
      throw err;
    }
    Object.defineProperty(conn, 'server', { get: () => slot.sql.parameters as Record<string, string> });
    const giveBack = conn.release.bind(conn);
    let released = false;
    conn.release = () => {
      if (released) return;
      released = true;
      giveBack();
      if (ended || !alive(slot)) { discard(slot); return; }
      slot.idleSince = Date.now();
      idle.push(slot);
      wakeOne();
    };
    return conn;
  };

  const reserve = async (): Promise<Reserved> => {
    for (;;) {
      if (ended) throw Object.assign(new Error('the connection was closed'), { code: 'CONNECTION_ENDED' });
      const slot = take();
      if (slot) return use(slot);
      await new Promise<void>((resolve) => { waiting.push(resolve); });
    }
  };

  return {
    reserve,
    async end(timeoutSeconds) {
      ended = true;
      while (waiting.length > 0) wakeOne();
      idle.length = 0;
      const all = [...slots];
      slots.clear();
      for (const slot of all) slot.dead = true;
      await Promise.all(all.map((slot) => slot.sql.end({ timeout: timeoutSeconds }).catch(noop)));
    },
  };
}
