/** What a route answers: a status and a JSON body (C-AG-1: every answer is JSON), plus any extra headers. */
export interface AgentReply {
  status: number;
  body: object;
  headers?: Readonly<Record<string, string>>;
}

export function ok(body: object): AgentReply {
  return { status: 200, body };
}

/** What a route handler gets: the raw body (decoded by request-bodies.ts) and the client's departure. */
export interface RouteRequest {
  body: Buffer;
  /** Aborted when the client goes away before its answer was written (C-AG-4: that cancels its command). */
  clientGone: AbortSignal;
}

/** One route of the agent's API; the table in agent-routes.ts is the only place a path is given a handler. */
export interface AgentRoute {
  /** `GET` routes answer `HEAD` too; any other method on the path is 405 with `Allow`. */
  readonly method: 'GET' | 'POST';
  /**
   * The session bearer is required (C-AG-1). It belongs to the route the request matched, so no spelling of a
   * path can reach a handler without the check its route demands (anything unmatched is 404 before any handler).
   */
  readonly bearer: boolean;
  handle(request: RouteRequest): AgentReply | Promise<AgentReply>;
}

/** Exact request path (the target up to `?`) → route. Paths are matched as sent: no decoding, no normalising. */
export type RouteTable = ReadonlyMap<string, AgentRoute>;

export function allowHeaderOf(route: AgentRoute): string {
  return route.method === 'GET' ? 'GET, HEAD' : route.method;
}
