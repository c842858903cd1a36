/** A failure before the agent's response, as the agent client reports it: Node's errno and a detail. */
export interface NetworkFailure {
  errno?: string;
  detail: string;
}

/**
 * Names an undici failure with the errno node:http gave for the same event, because recovery decides on it
 * (C-K8S-7: `ECONNREFUSED`/`ENOENT` = not delivered, safe to retry; anything else = may have run, never retried).
 * Connect and socket errors arrive from Node unchanged (`ECONNREFUSED`, `ENOENT`, `ECONNRESET`, `EPIPE`, …); undici's
 * own codes are mapped here.
 */
export function networkFailure(error: Error & { code?: string }): NetworkFailure {
  switch (error.code) {
    // The agent closed the connection after the request was written ("other side closed"), or we closed the client
    // under it: it may have run. node:http called this "socket hang up", ECONNRESET.
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
    case 'UND_ERR_DESTROYED':
      return { errno: 'ECONNRESET', detail: 'socket hang up' };
    // undici gives up connecting after 10 s where the kernel would after ~2 min: ETIMEDOUT either way.
    case 'UND_ERR_CONNECT_TIMEOUT':
      return { errno: 'ETIMEDOUT', detail: error.message };
    default:
      return { errno: error.code, detail: error.message };
  }
}
