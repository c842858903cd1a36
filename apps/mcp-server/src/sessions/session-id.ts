/** A session id quoted for a message: JSON-escaped (Go's `%q`) and shortened, since it is client input. */
export function quoteSessionId(sessionId: string): string {
  return JSON.stringify(sessionId.length > 80 ? `${sessionId.slice(0, 80)}…` : sessionId);
}
