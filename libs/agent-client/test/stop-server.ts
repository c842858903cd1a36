import type { Server } from 'node:http';

/** Ends a test's HTTP server now: its open keep-alive connections too (the client under test may still hold some). */
export function stopServer(server: Server | undefined): Promise<void> {
  if (!server) return Promise.resolve();
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
