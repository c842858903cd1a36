/** Thrown to a waiter whose own signal aborted while it waited on a shared flight. */
export class FlightAbortedError extends Error {
  constructor() {
    super('aborted');
    this.name = 'FlightAbortedError';
  }
}

interface Flight<V> {
  promise: Promise<V>;
  waiters: number;
  controller: AbortController;
}

/**
 * One in-flight call per key (C-K8S-4: one acquisition per session per replica). Each caller waits with its own
 * signal; the shared work is aborted only when every waiter has given up, so one impatient caller cannot fail
 * the others.
 */
export class SingleFlight<V> {
  private readonly flights = new Map<string, Flight<V>>();

  get inFlight(): number {
    return this.flights.size;
  }

  /** True while work for `key` runs: a `run` for it now joins that work instead of starting its own. */
  has(key: string): boolean {
    return this.flights.has(key);
  }

  run(key: string, signal: AbortSignal, work: (sharedSignal: AbortSignal) => Promise<V>): Promise<V> {
    if (signal.aborted) return Promise.reject(new FlightAbortedError());
    let flight = this.flights.get(key);
    if (!flight) {
      const controller = new AbortController();
      const created: Flight<V> = { controller, waiters: 0, promise: Promise.resolve(undefined as V) };
      created.promise = (async () => {
        try {
          return await work(controller.signal);
        } finally {
          if (this.flights.get(key) === created) this.flights.delete(key);
        }
      })();
      // The shared promise may reject after every waiter left; that rejection is reported to nobody.
      created.promise.catch(() => undefined);
      this.flights.set(key, created);
      flight = created;
    }
    return this.wait(flight, signal);
  }

  private wait(flight: Flight<V>, signal: AbortSignal): Promise<V> {
    flight.waiters++;
    return new Promise<V>((resolve, reject) => {
      let done = false;
      const onAbort = (): void => {
        if (done) return;
        done = true;
        if (--flight.waiters === 0) flight.controller.abort();
        reject(new FlightAbortedError());
      };
      signal.addEventListener('abort', onAbort, { once: true });
      flight.promise.then(
        (value) => {
          if (done) return;
          done = true;
          flight.waiters--;
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error: unknown) => {
          if (done) return;
          done = true;
          flight.waiters--;
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }
}
