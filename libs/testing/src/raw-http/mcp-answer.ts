/**
 * The JSON-RPC messages of a streamable-HTTP answer body: an SSE stream (`event: message` / `data: {…}`), or the one
 * `application/json` message a quick call gets (issue 11).
 */
export function mcpAnswerMessages(body: string): Array<Record<string, unknown>> {
  if (body.trimStart().startsWith('{')) return [JSON.parse(body) as Record<string, unknown>];
  return body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)) as Record<string, unknown>);
}
