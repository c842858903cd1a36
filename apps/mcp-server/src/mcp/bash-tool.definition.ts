import type { ExecResponse } from '@cli-mcp/agent-client';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolConfig } from '../config/server-config.js';

export const BASH_TOOL_NAME = 'bash';

/** Agent fields a `bash` result repeats as they are; the tails are folded into the text (render/). */
type AgentResultFields = Omit<ExecResponse, 'stdout_tail' | 'stderr_tail'>;

/** `structuredContent` of a `bash` result (C-MCP-2): the Go fields plus additive ones. */
export interface BashStructuredOutput
  extends Pick<AgentResultFields, 'stdout' | 'stderr' | 'exit_code' | 'duration_ms'>,
    Partial<Omit<AgentResultFields, 'stdout' | 'stderr' | 'exit_code' | 'duration_ms'>> {
  sandbox_recreated?: boolean;
  sandbox_files_kept?: boolean;
}

const integer = (description: string): Record<string, unknown> => ({ type: 'integer', minimum: 0, description });
const flag = (description: string): Record<string, unknown> => ({ type: 'boolean', description });
const text = (description: string): Record<string, unknown> => ({ type: 'string', description });

/**
 * The one tool (C-MCP-2). The description keeps the Go wording's meaning (Go §2.2) and adds what a model needs
 * to use it well: persistence, /workspace, timeouts, the yield (C-MCP-11) and where long output goes. It takes the
 * validated tool settings whole, so no path can build it with a setting left out (issue 19).
 */
export function bashToolDefinition(settings: Pick<ToolConfig, 'defaultTimeoutSeconds' | 'maxTimeoutSeconds' | 'yieldAfterMs'>): Tool {
  const { defaultTimeoutSeconds, maxTimeoutSeconds } = settings;
  const yieldAfterSeconds = settings.yieldAfterMs / 1000;
  return {
    name: BASH_TOOL_NAME,
    title: 'Bash (persistent sandbox shell)',
    description:
      'Execute a shell command in a persistent sandbox bash session. Supports full bash syntax: pipes, redirects, ' +
      'chaining, and standard Unix tools. The working directory, environment variables and files in /workspace ' +
      `persist between calls of the same session. Commands time out after ${defaultTimeoutSeconds} s unless ` +
      `\`timeout\` says otherwise (at most ${maxTimeoutSeconds} s). Stdin is empty, so interactive programs do not work. ` +
      'Long output is shortened to its head and tail, and the result names the file that keeps it in full. ' +
      'Set `tty` for a program that refuses to run without a terminal.' +
      (yieldAfterSeconds > 0
        ? ` A command still running after ${yieldAfterSeconds} s becomes a background job of the shell and the call ` +
          'returns with its output so far and its job id (%N): follow it with wait, tail of its output file, or kill.'
        : ''),
    inputSchema: {
      type: 'object',
      properties: {
        command: { type: 'string', description: 'Shell command to execute (full bash — pipes, redirects, chaining supported)' },
        timeout: {
          type: ['integer', 'null'],
          description: `Max execution time in seconds (default ${defaultTimeoutSeconds}, max ${maxTimeoutSeconds})`,
        },
        tty: {
          type: ['boolean', 'null'],
          description:
            'Run this one command in a pseudo-terminal, for programs that refuse to run without one. Output is then one ' +
            'merged stream in stdout (ANSI escapes removed); shell changes it makes (cd, export) do not persist.',
        },
      },
      required: ['command'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        stdout: text('Standard output (head and tail when long).'),
        stderr: text('Standard error (head and tail when long).'),
        exit_code: {
          type: 'integer',
          description: 'Exit status; 137 after a timeout, 130 after a cancel; -1 while `running` (the command has no status yet).',
        },
        duration_ms: integer('Run time measured in the sandbox.'),
        timeout_seconds: { type: 'number', minimum: 0, description: 'The timeout applied to this command, in seconds.' },
        timed_out: flag('The command hit its timeout and was killed.'),
        cancelled: flag('The client cancelled the command.'),
        truncated: flag('Part of the output is left out of stdout/stderr.'),
        state_reset: flag('The shell had died and this command ran in a fresh one.'),
        sandbox_recreated: flag('The sandbox (or its shell) was recreated: shell state from earlier commands is gone.'),
        sandbox_files_kept: flag('With sandbox_recreated: whether the files in /workspace were kept.'),
        stdout_bytes: integer('Total bytes written to stdout.'),
        stderr_bytes: integer('Total bytes written to stderr.'),
        stdout_omitted_bytes: integer('Bytes of stdout left out.'),
        stdout_omitted_lines: integer('Newlines in the stdout left out.'),
        stderr_omitted_bytes: integer('Bytes of stderr left out.'),
        stderr_omitted_lines: integer('Newlines in the stderr left out.'),
        stdout_file: text('Sandbox path of the full stdout.'),
        stderr_file: text('Sandbox path of the full stderr.'),
        stdout_binary: flag('stdout looked binary; its text is lossy.'),
        stderr_binary: flag('stderr looked binary; its text is lossy.'),
        running: flag('The command was still running when the call returned (see yield_mode); exit_code is -1.'),
        yield_mode: {
          type: 'string',
          enum: ['job', 'shell', 'queued', 'waiting'],
          description:
            'With running: job = now a background job of the session shell (see job; its further output goes to ' +
            'stdout_file/stderr_file); shell = it runs in the shell itself and keeps it busy; queued = this command ' +
            'never ran because an earlier one holds the shell; waiting = a wait was interrupted, its jobs keep running.',
        },
        job: text('Bash job spec of the background job, e.g. %1: use it with jobs, wait, kill.'),
        job_pid: integer('Process id of the background job.'),
        yield_reason: text('Why the command could not become a background job, or what holds the shell.'),
      },
      required: ['stdout', 'stderr', 'exit_code', 'duration_ms'],
      additionalProperties: false,
    },
    annotations: {
      title: 'Bash (persistent sandbox shell)',
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    },
  };
}
