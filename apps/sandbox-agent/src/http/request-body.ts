import type { IncomingMessage } from 'node:http';
import { AgentError, AgentErrorCode } from '@cli-mcp/agent-client';

/**
 * Reads a request body as raw bytes, whatever its Content-Type (as the Go agent did), up to `limit`. A declared
 * length over the limit is refused before a byte is read; a chunked body is cut off as soon as it passes it
 * (→ 413). A client that breaks off mid-body → `invalid request body` (it is gone; nobody reads the answer).
 */
export function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  if (Number(request.headers['content-length']) > limit) return Promise.reject(new AgentError(AgentErrorCode.BodyTooLarge));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        request.off('data', onData);
        reject(new AgentError(AgentErrorCode.BodyTooLarge));
        return;
      }
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.once('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)));
    request.once('error', () => reject(new AgentError(AgentErrorCode.InvalidBody)));
  });
}
