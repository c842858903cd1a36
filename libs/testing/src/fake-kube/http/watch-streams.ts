import type { ServerResponse } from 'node:http';
import type { KubeObject } from '../api/types.js';
import type { WatchSession } from '../api/watch-session.js';
import type { FaultAction } from './faults.js';
import type { RequestRecord } from './request-log.js';

/** Filter of `whenWatching`: resource plural, namespace, and/or only requests after sequence number `since`. */
export interface WatchFilter {
  resource?: string;
  namespace?: string;
  since?: number;
}

/** The open watch streams of a server: chunked responses fed by WatchSessions, and waiters for "a client watches". */
export class WatchStreams {
  /** Open watch streams and the request that opened each. */
  private readonly open = new Map<WatchSession, RequestRecord>();
  private waiters: { filter: (record: RequestRecord) => boolean; resolve: (record: RequestRecord) => void }[] = [];

  get size(): number {
    return this.open.size;
  }

  /** Streams `session` into `res` as newline-delimited JSON until either side ends it. */
  stream(res: ServerResponse, session: WatchSession, record: RequestRecord, fault?: FaultAction, encode?: (object: KubeObject) => unknown): void {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    record.status = 200;
    this.open.set(session, record);
    const done = (): void => {
      this.open.delete(session);
    };
    res.once('close', () => {
      done();
      session.close();
    });
    session.start({
      send: (event) => {
        const wire = encode && (event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED') ? { type: event.type, object: encode(event.object as KubeObject) } : event;
        if (!res.writableEnded && !res.destroyed) res.write(`${JSON.stringify(wire)}\n`);
      },
      close: (abrupt) => {
        done();
        if (abrupt) res.destroy();
        else if (!res.writableEnded) res.end();
      },
    });
    this.waiters = this.waiters.filter((waiter) => {
      if (!session.open || !waiter.filter(record)) return true;
      waiter.resolve(record);
      return false;
    });
    if (fault?.cutWatchAfterMs !== undefined) {
      const timer = setTimeout(() => session.close(), fault.cutWatchAfterMs);
      res.once('close', () => clearTimeout(timer));
    }
  }

  /** See FakeKubeServer.whenWatching. */
  whenWatching(filter: WatchFilter, timeoutMs: number): Promise<RequestRecord> {
    const matches = (r: RequestRecord): boolean =>
      (filter.resource === undefined || r.resource === filter.resource) &&
      (filter.namespace === undefined || r.namespace === filter.namespace) &&
      (filter.since === undefined || r.seq > filter.since);
    const open = [...this.open.values()].find(matches);
    if (open) return Promise.resolve(open);
    return new Promise((resolveWait, reject) => {
      const waiter = {
        filter: matches,
        resolve: (record: RequestRecord) => {
          clearTimeout(timer);
          resolveWait(record);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`no watch matching ${JSON.stringify(filter)} opened within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** Ends every open stream (cleanly, or by destroying the connections when `abrupt`). Returns how many. */
  cut(abrupt: boolean): number {
    const sessions = [...this.open.keys()];
    for (const session of sessions) session.close(abrupt);
    return sessions.length;
  }
}
