/**
 * Live by events, not by polling: one EventSource per tab on GET /api/v1/events (the browser
 * resends Last-Event-ID when it reconnects). Each event updates or invalidates the queries it
 * touches; `reset` (the stream could not resume) refetches everything on screen.
 */
import { useEffect } from 'react';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { keys } from './keys';

type Listener = (event: string, data: unknown) => void;
const listeners = new Set<Listener>();

/** Subscribes a component to the raw events (e.g. a run's page following its steps). */
export function useEventListener(listener: Listener): void {
  useEffect(() => {
    listeners.add(listener);
    return () => { listeners.delete(listener); };
  }, [listener]);
}

function apply(client: QueryClient, event: string, data: Record<string, unknown>): void {
  switch (event) {
    case 'run.updated':
      void client.invalidateQueries({ queryKey: keys.runs.one(String(data.id)) });
      void client.invalidateQueries({ queryKey: keys.runs.lists() });
      void client.invalidateQueries({ queryKey: keys.reports.all });
      void client.invalidateQueries({ queryKey: keys.dashboard });
      // A channel's attempts (its page's list) change with the runs that send through it.
      void client.invalidateQueries({ predicate: (q) => q.queryKey[0] === keys.channels.all[0] && q.queryKey[3] === 'attempts' });
      break;
    case 'report.updated':
      void client.invalidateQueries({ queryKey: keys.reports.all });
      void client.invalidateQueries({ queryKey: keys.dashboard });
      break;
    case 'channel.health':
      void client.invalidateQueries({ queryKey: keys.channels.all });
      break;
    case 'notification.created':
      void client.invalidateQueries({ queryKey: keys.notifications.all });
      break;
    case 'reset':
      void client.invalidateQueries();
      break;
    default:
      break;
  }
}

const KINDS = ['reset', 'run.updated', 'report.updated', 'channel.health', 'notification.created'];

/** Opens the tab's event stream while someone is signed in. */
export function useLiveEvents(enabled: boolean): void {
  const client = useQueryClient();
  useEffect(() => {
    if (!enabled) return undefined;
    const source = new EventSource('/api/v1/events', { withCredentials: true });
    const handlers = KINDS.map((kind) => {
      const handler = (e: MessageEvent<string>) => {
        let data: Record<string, unknown> = {};
        try { data = JSON.parse(e.data) as Record<string, unknown>; } catch { /* keep {} */ }
        apply(client, kind, data);
        for (const l of listeners) l(kind, data);
      };
      source.addEventListener(kind, handler as EventListener);
      return [kind, handler] as const;
    });
    return () => {
      for (const [kind, handler] of handlers) source.removeEventListener(kind, handler as EventListener);
      source.close();
    };
  }, [enabled, client]);
}
