'use client';
// The one subscription: an EventSource on /api/stream. The first message brings the snapshot and the whole chart
// history, each later one the new snapshot and one point. A stream that drops is reopened by the browser (the server
// asks for 2 s); a session that ended sends the browser to the login page.

import { useEffect, useState } from 'react';
import { trimHistory } from '../state/chart-history.ts';
import type { HistoryPoint, Snapshot, StreamMessage } from '../state/snapshot.ts';

export type Connection = 'connecting' | 'live' | 'reconnecting';

export interface LiveState {
  readonly snapshot: Snapshot | null;
  readonly history: readonly HistoryPoint[];
  readonly connection: Connection;
  /** When the last message came (browser time). */
  readonly receivedAt: number | null;
}

/** Points kept in the browser at most. */
const maxPoints = 1200;

export function useLiveState(initial: Snapshot | null, loginRequired: boolean): LiveState {
  const [state, setState] = useState<LiveState>({ snapshot: initial, history: [], connection: 'connecting', receivedAt: null });

  useEffect(() => {
    let source: EventSource | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let closed = false;
    const connect = () => {
      source = new EventSource('/api/stream');
      source.addEventListener('snapshot', (event) => {
        let message: StreamMessage;
        try {
          message = JSON.parse((event as MessageEvent<string>).data) as StreamMessage;
        } catch {
          return;
        }
        setState((previous) => {
          const history = message.reset ? [...message.points] : [...previous.history, ...message.points];
          return { snapshot: message.snapshot, history: trimHistory(history, message.snapshot.historyMs, maxPoints), connection: 'live', receivedAt: Date.now() };
        });
      });
      source.addEventListener('logged-out', () => window.location.assign('/login'));
      source.onerror = () => {
        setState((previous) => ({ ...previous, connection: 'reconnecting' }));
        // The browser reopens a stream that dropped, but not one refused with an error status (401, 503): that
        // one is reopened here, after asking whether the session ended.
        if (source?.readyState !== EventSource.CLOSED || closed) return;
        source.close();
        if (loginRequired) {
          fetch('/api/session', { cache: 'no-store' })
            .then((response) => response.json() as Promise<{ authenticated?: boolean }>)
            .then((session) => {
              if (session.authenticated === false) window.location.assign('/login');
            })
            .catch(() => undefined);
        }
        retry = setTimeout(connect, 2000);
      };
    };
    connect();
    return () => {
      closed = true;
      clearTimeout(retry);
      source?.close();
    };
  }, [loginRequired]);

  return state;
}

/** The current time, ticking every second, for "updated 3 s ago". */
export function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}
