// Helpers for benchmarks that run the fake cluster (libs/testing) in their own process.

/** Resolves once `check()` holds, re-checked on every change in the fake cluster's store (no polling). */
export function untilCluster(cluster, check, timeoutMs = 60_000) {
  return new Promise((resolve, reject) => {
    const done = () => {
      if (!check()) return;
      off();
      clearTimeout(timer);
      resolve();
    };
    const off = cluster.store.subscribe(done);
    const timer = setTimeout(() => (off(), reject(new Error('bench wait timed out'))), timeoutMs);
    done();
  });
}
