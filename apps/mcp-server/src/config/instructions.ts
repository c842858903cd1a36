/**
 * Default server instructions (C-MCP-1): generic on purpose — deployments describe their image's CLIs with
 * `--instructions-file` (the Go docs asked clients to do so in their own config).
 */
export function defaultInstructions(defaultTimeoutSeconds: number, maxTimeoutSeconds: number): string {
  return [
    'This server runs shell commands with the `bash` tool in a sandbox that belongs to your session.',
    'The shell is persistent: the working directory, environment variables and files in /workspace carry over',
    `between calls. Each command has a timeout (default ${defaultTimeoutSeconds} s, at most ${maxTimeoutSeconds} s; set`,
    '`timeout` for long work). Long output is shortened to its head and tail; the full output of recent commands',
    'is saved under /workspace/.cli-mcp/ (the result names the file), so you can grep or page it there.',
  ].join(' ');
}
