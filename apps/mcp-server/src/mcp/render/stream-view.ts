import type { ExecResponse } from '@cli-mcp/agent-client';

export type StreamName = 'stdout' | 'stderr';

/**
 * One output stream as the agent returned it: `head`, then a middle the agent did not send (`gapBytes` bytes with
 * `gapLines` newlines), then `tail`. Without agent truncation the whole stream is `head`.
 */
export interface StreamView {
  readonly name: StreamName;
  readonly head: string;
  readonly tail: string;
  readonly gapBytes: number;
  readonly gapLines: number;
  /** Where the agent saved the full stream (inside the sandbox). */
  readonly file: string | undefined;
  readonly totalBytes: number;
  readonly binary: boolean;
}

/** Reads one stream's fields of an agent response (C-MCP-6 wire fields). */
export function streamView(response: ExecResponse, name: StreamName): StreamView {
  const tail = name === 'stdout' ? response.stdout_tail : response.stderr_tail;
  const gapBytes = name === 'stdout' ? response.stdout_omitted_bytes : response.stderr_omitted_bytes;
  const gapLines = name === 'stdout' ? response.stdout_omitted_lines : response.stderr_omitted_lines;
  const head = response[name];
  return {
    name,
    head,
    tail: tail ?? '',
    gapBytes: gapBytes ?? 0,
    gapLines: gapLines ?? 0,
    file: (name === 'stdout' ? response.stdout_file : response.stderr_file) || undefined,
    totalBytes: (name === 'stdout' ? response.stdout_bytes : response.stderr_bytes) ?? Buffer.byteLength(head) + Buffer.byteLength(tail ?? ''),
    binary: (name === 'stdout' ? response.stdout_binary : response.stderr_binary) ?? false,
  };
}

/** Whether the agent already left out part of the stream. */
export function hasGap(view: StreamView): boolean {
  return view.gapBytes > 0 || view.gapLines > 0 || view.tail !== '';
}
