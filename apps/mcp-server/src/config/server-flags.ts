import type { FlagSpec } from '@cli-mcp/common';
import { COMMAND_TIMEOUT_FLAGS, KUBERNETES_FLAGS } from '@cli-mcp/kube';

/** Env var prefix of every server flag (C-CFG-1): `--max-output-chars` ↔ `CLI_MCP_MAX_OUTPUT_CHARS`. */
export const ENV_PREFIX = 'CLI_MCP_';

const SERVER = 'Server';
const TOOL = 'Tool';
const SECURITY = 'HTTP security';
const LOCAL = 'Local backend (--backend local)';
const KUBE = 'Kubernetes backend (--backend kubernetes)';
const OTHER = 'Other';

/** Every server flag, in `--help` order. The Go names are kept (Go §7.1/7.2); new flags follow their style. */
export const SERVER_FLAGS: readonly FlagSpec[] = [
  { group: SERVER, name: 'transport', short: 't', valueName: 'stdio|http', default: 'stdio', description: 'MCP transport: stdio (one client, one session) or streamable HTTP (stateless, many sessions).' },
  { group: SERVER, name: 'address', short: 'a', valueName: 'host:port', default: '127.0.0.1:8080', description: 'HTTP listen address; port 0 picks a free port (the bound URL is logged). Non-loopback needs --auth-token-file.' },
  { group: SERVER, name: 'stateless', kind: 'boolean', description: 'Accepted for compatibility with the Go server; HTTP is always stateless.' },
  { group: SERVER, name: 'backend', valueName: 'local|kubernetes', default: 'local', description: 'Where sandboxes run: local processes on this machine, or one pod per session.' },
  { group: SERVER, name: 'ready-timeout', valueName: 'duration', default: '60s', description: 'How long a new sandbox may take to become ready, on either backend (kubernetes: scheduled, image pulled, agent healthy).' },
  { group: SERVER, name: 'session-id', valueName: 'id', defaultText: 'stdio-<random>, one per process', description: 'stdio only: the session (sandbox) this process serves; an RFC 1123 label.' },
  { group: SERVER, name: 'eager-acquire', kind: 'boolean', defaultText: 'true', description: 'Start making a session\'s sandbox on its first request (initialize, tools/list, ping …), so the first command does not wait for it; =false turns it off.' },
  { group: SERVER, name: 'cache-ttl', valueName: 'duration', default: '30s', description: 'How long a session → sandbox lookup is cached.' },
  { group: SERVER, name: 'shutdown-grace', valueName: 'duration', defaultText: 'max-timeout + 10s', description: 'On SIGTERM/SIGINT, how long running commands may finish before they are cancelled.' },

  ...COMMAND_TIMEOUT_FLAGS.map((spec) => ({ ...spec, group: TOOL })),
  { group: TOOL, name: 'result-format', valueName: 'text|json', default: 'text', description: 'Tool result text: readable plain text, or the Go server\'s JSON object.' },
  { group: TOOL, name: 'max-output-chars', valueName: 'n', default: '30000', description: 'Budget of the result text; the head and tail of the output are kept and the rest is counted exactly.' },
  { group: TOOL, name: 'yield-after', valueName: 'duration', default: '50s', description: 'A command still running after this long becomes a background job of the session shell and the call returns (0 = never); keep it below the client\'s tool-call timeout.' },
  { group: TOOL, name: 'progress-interval', valueName: 'duration', default: '5s', description: 'Interval of progress notifications for calls that send a progressToken (at most 5s).' },
  { group: TOOL, name: 'instructions-file', valueName: 'path', description: 'Replaces the server instructions sent at initialize (e.g. to list the CLIs in your sandbox image).' },

  { group: SECURITY, name: 'auth-token-file', valueName: 'path', description: 'Require "Authorization: Bearer <file content>" on /mcp and /sessions. Required for a non-loopback --address.' },
  { group: SECURITY, name: 'allowed-hosts', valueName: 'host,host|*', description: 'Host/Origin names accepted besides loopback ones (DNS-rebinding protection); * accepts any (behind a proxy).' },
  { group: SECURITY, name: 'hmac-key-file', valueName: 'path', defaultText: '<state-dir>/hmac.key, generated on first start (local backend)', description: 'Key that derives each session\'s sandbox token. Required with --backend kubernetes.' },

  { group: LOCAL, name: 'state-dir', valueName: 'path', defaultText: '$XDG_STATE_HOME/cli-mcp-server or ~/.local/state/cli-mcp-server', description: 'Directory for the generated HMAC key and local sandboxes\' state.' },
  { group: LOCAL, name: 'local-isolation', valueName: 'auto|bwrap|none', default: 'auto', description: 'Sandbox isolation: bubblewrap when available (auto), required (bwrap), or plain processes (none).' },
  { group: LOCAL, name: 'local-network', valueName: 'auto|isolated|host|none', default: 'auto', description: 'Network of local sandboxes: isolated (own namespace, outbound through slirp4netns, no host loopback), none (no network), host (shared with the server: sandboxes reach its port and every loopback service); auto = isolated where slirp4netns works, else host with a warning.' },
  { group: LOCAL, name: 'local-reset-state', kind: 'boolean', description: 'Delete the sessions\' workspaces an earlier server left in the state dir instead of adopting them (by default a restart keeps every session\'s files).' },
  { group: LOCAL, name: 'local-ro-bind', valueName: 'path', repeatable: true, description: 'Extra host path sandboxes see read-only (repeatable; env: comma-separated). Never the state dir or a key file.' },
  { group: LOCAL, name: 'local-max-processes', valueName: 'n', description: 'Most tasks (processes and threads, the agent\'s own ~20 included) per sandbox; needs a writable cgroup (else start-up fails saying so). Unset: no limit.' },
  { group: LOCAL, name: 'local-max-memory', valueName: 'quantity', description: 'Most memory per sandbox (e.g. 512Mi, the agent\'s ~60 MB included); needs a writable cgroup (else start-up fails saying so). Unset: no limit.' },
  { group: LOCAL, name: 'max-sessions', valueName: 'n', default: '32', description: 'Most sandboxes alive at once; a new session beyond it is refused.' },
  { group: LOCAL, name: 'idle-timeout', valueName: 'duration', default: '30m', description: 'A sandbox unused this long is removed (kubernetes: a sandbox-controller flag; accepted here, unused).' },
  { group: LOCAL, name: 'warm-pool-size', valueName: 'n', default: '0', description: 'Sandboxes started ahead of demand (kubernetes: a sandbox-controller flag; accepted here, unused).' },

  // Defined once with the controller (libs/session `KUBERNETES_FLAGS`), listed here under this heading.
  ...KUBERNETES_FLAGS.map((spec) => ({ ...spec, group: KUBE })),
  { group: KUBE, name: 'activity-interval', valueName: 'duration', default: '30s', description: 'At most one last-activity update per session per interval.' },

  { group: OTHER, name: 'log-level', valueName: 'level', default: 'info', description: 'trace, debug, info, warn, error, fatal or silent (JSON lines on stderr).' },
  { group: OTHER, name: 'help', short: 'h', kind: 'boolean', noEnv: true, description: 'Print this help and exit.' },
  { group: OTHER, name: 'version', short: 'v', kind: 'boolean', noEnv: true, description: 'Print the version and exit.' },
];
