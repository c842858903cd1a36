/**
 * `node:crypto`, loaded on first use rather than at import. Loading it maps OpenSSL's code into the process,
 * ≈ 0.7 MB of resident memory (measured on Node 20: an HTTP server idles at 44.1 MB, 44.8 MB once `node:crypto`
 * is required). An idle sandbox agent — every warm-pool pod — needs none of it until its first authenticated
 * request or command (issue 19 item 8: its image ENTRYPOINT idles at ≤ 45 MB). `process.getBuiltinModule` is
 * synchronous and needs no module loader (Node ≥ 20.16), so the CommonJS bundles stay free of the ES-module one.
 */
export function nodeCrypto(): typeof import('node:crypto') {
  return process.getBuiltinModule('node:crypto') as typeof import('node:crypto');
}
