import { DurationRange, Flag, IntegerRange, OTHER_GROUP, OneOf, Satisfies } from '@cli-mcp/common';
import { SandboxSettings } from '@cli-mcp/kube';
import type { BackendKind, LocalIsolation, LocalNetwork, ResultFormat, Transport } from './server-config.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export const SERVER = 'Server';
export const TOOL = 'Tool';
export const SECURITY = 'HTTP security';
export const LOCAL = 'Local backend (--backend local)';
export const EGRESS = 'Egress gateway (--backend local: --local-network proxy)';
export const KUBE = 'Kubernetes backend (--backend kubernetes)';
export const OTHER = OTHER_GROUP;

/**
 * Every server flag, declared once with its type, `--help` text, default and rules (C-CFG-1; the Go names are
 * kept, Go §7.1/7.2, new flags follow their style), validated by class-validator through `readSettings`. The
 * sandbox flags are the controller's too (`SandboxSettings`), and so are the Kubernetes ones (`KubernetesSettings`,
 * read by `readKubernetesSettings`). Values that need files or parsing beyond a type (`--address`,
 * `--allowed-hosts`, `--*-file`, `--state-dir`, `--session-id`, `--local-max-*`) are finished by
 * `loadServerConfig`.
 */
export class ServerSettings extends SandboxSettings {
  @Flag('transport', { group: SERVER, short: 't', valueName: 'stdio|http', default: 'stdio', description: 'MCP transport: stdio (one client, one session) or streamable HTTP (stateless, many sessions).' })
  @OneOf(['stdio', 'http'])
  transport!: Transport;

  @Flag('address', { group: SERVER, short: 'a', valueName: 'host:port', default: '127.0.0.1:8080', description: 'HTTP listen address; port 0 picks a free port (the bound URL is logged). Non-loopback needs --auth-token-file.' })
  address!: string;

  @Flag('stateless', { group: SERVER, type: 'boolean', description: 'Accepted for compatibility with the Go server; HTTP is always stateless.' })
  stateless!: boolean;

  @Flag('backend', { group: SERVER, valueName: 'local|kubernetes', default: 'local', description: 'Where sandboxes run: local processes on this machine, or one pod per session.' })
  @OneOf(['local', 'kubernetes'])
  backend!: BackendKind;

  @Flag('ready-timeout', { group: SERVER, type: 'duration', valueName: 'duration', default: '60s', description: 'How long a new sandbox may take to become ready, on either backend (kubernetes: scheduled, image pulled, agent healthy).' })
  @DurationRange({ minMs: 1000, maxMs: HOUR_MS })
  readyTimeoutMs!: number;

  @Flag('session-id', { group: SERVER, valueName: 'id', defaultText: 'stdio-<random>, one per process', description: 'stdio only: the session (sandbox) this process serves; an RFC 1123 label.' })
  sessionId?: string;

  @Flag('eager-acquire', { group: SERVER, type: 'boolean', defaultText: 'true', description: 'Start making a session\'s sandbox on its first request (initialize, tools/list, ping …), so the first command does not wait for it; =false turns it off.' })
  eagerAcquire?: boolean;

  @Flag('cache-ttl', { group: SERVER, type: 'duration', valueName: 'duration', default: '30s', description: 'How long a session → sandbox lookup is cached.' })
  @DurationRange({ minMs: 1000, maxMs: HOUR_MS })
  cacheTtlMs!: number;

  @Flag('shutdown-grace', { group: SERVER, type: 'duration', valueName: 'duration', defaultText: 'max-timeout + 10s', description: 'On SIGTERM/SIGINT, how long running commands may finish before they are cancelled.' })
  @DurationRange({ minMs: 0, maxMs: DAY_MS })
  shutdownGraceMs?: number;

  @Flag('result-format', { group: TOOL, valueName: 'text|json', default: 'text', description: 'Tool result text: readable plain text, or the Go server\'s JSON object.' })
  @OneOf(['text', 'json'])
  resultFormat!: ResultFormat;

  @Flag('max-output-chars', { group: TOOL, type: 'integer', valueName: 'n', default: '30000', description: 'Budget of the result text; the head and tail of the output are kept and the rest is counted exactly.' })
  @IntegerRange(1000, 10_000_000)
  maxOutputChars!: number;

  @Flag('yield-after', { group: TOOL, type: 'duration', valueName: 'duration', default: '50s', description: 'A command still running after this long becomes a background job of the session shell and the call returns (0 = never); keep it below the client\'s tool-call timeout.' })
  @DurationRange({ minMs: 0, maxMs: DAY_MS })
  // C-MCP-11: 0 = never; otherwise at least a second, so a call always gets to start its command.
  @Satisfies('neverOrASecond', (ms: number) => ms === 0 || ms >= 1000, '$property must be 0 (never) or at least 1s')
  yieldAfterMs!: number;

  @Flag('progress-interval', { group: TOOL, type: 'duration', valueName: 'duration', default: '5s', description: 'Interval of progress notifications for calls that send a progressToken (at most 5s).' })
  @DurationRange({ minMs: 100, maxMs: 5000 })
  progressIntervalMs!: number;

  @Flag('instructions-file', { group: TOOL, valueName: 'path', description: 'Replaces the server instructions sent at initialize (e.g. to list the CLIs in your sandbox image).' })
  instructionsFile?: string;

  @Flag('auth-token-file', { group: SECURITY, valueName: 'path', description: 'Require "Authorization: Bearer <file content>" on /mcp and /sessions. Required for a non-loopback --address.' })
  authTokenFile?: string;

  @Flag('tls-cert-file', { group: SECURITY, valueName: 'path', description: 'Serve HTTPS with this PEM certificate chain (with --tls-key-file); re-read when the file changes, e.g. a rotated Kubernetes Secret.' })
  tlsCertFile?: string;

  @Flag('tls-key-file', { group: SECURITY, valueName: 'path', description: 'The PEM private key of --tls-cert-file. Hidden from local sandboxes like the other key files.' })
  tlsKeyFile?: string;

  @Flag('allowed-hosts', { group: SECURITY, type: 'list', valueName: 'host,host|*', description: 'Host/Origin names accepted besides loopback ones (DNS-rebinding protection); * accepts any (behind a proxy).' })
  allowedHosts!: string[];

  @Flag('hmac-key-file', { group: SECURITY, valueName: 'path', defaultText: '<state-dir>/hmac.key, generated on first start (local backend)', description: 'Key that derives each session\'s sandbox token. Required with --backend kubernetes.' })
  hmacKeyFile?: string;

  @Flag('state-dir', { group: LOCAL, valueName: 'path', defaultText: '$XDG_STATE_HOME/cli-mcp-server or ~/.local/state/cli-mcp-server', description: 'Directory for the generated HMAC key and local sandboxes\' state.' })
  stateDir?: string;

  @Flag('local-isolation', { group: LOCAL, valueName: 'auto|bwrap|none', default: 'auto', description: 'Sandbox isolation: bubblewrap when available (auto), required (bwrap), or plain processes (none).' })
  @OneOf(['auto', 'bwrap', 'none'])
  localIsolation!: LocalIsolation;

  @Flag('local-network', { group: LOCAL, valueName: 'auto|isolated|proxy|host|none', default: 'auto', description: 'Network of local sandboxes: isolated (own namespace, outbound through slirp4netns, no host loopback), proxy (loopback only; out only through the egress gateway and its --egress-* routes, credentials injected), none (no network), host (shared with the server: sandboxes reach its port and every loopback service); auto = proxy when an --egress-* flag is given, else isolated where slirp4netns works, else host with a warning.' })
  @OneOf(['auto', 'isolated', 'proxy', 'host', 'none'])
  // Only bubblewrap can give a sandbox its own network namespace (docs/local-backend.md, "Network").
  @Satisfies(
    'needsBubblewrap',
    (network: string, s: ServerSettings) => !(s.backend === 'local' && ['none', 'isolated', 'proxy'].includes(network) && s.localIsolation === 'none'),
    '$property needs bubblewrap: use localIsolation auto or bwrap',
  )
  localNetwork!: LocalNetwork;

  @Flag('local-reset-state', { group: LOCAL, type: 'boolean', description: 'Delete the sessions\' workspaces an earlier server left in the state dir instead of adopting them (by default a restart keeps every session\'s files).' })
  localResetState!: boolean;

  @Flag('local-ro-bind', { group: LOCAL, type: 'list', repeatable: true, valueName: 'path', description: 'Extra host path sandboxes see read-only (repeatable; env: comma-separated). Never the state dir or a key file.' })
  localRoBinds!: string[];

  // The bounds (issue 22): read as text, since each also takes `off`; parsed by readLocalBounds (local-bounds-flags.ts).
  @Flag('local-max-processes', { group: LOCAL, valueName: 'n|off', defaultText: '1024', description: 'Most tasks (processes and threads, the agent\'s own 12 included) per sandbox; off: no bound. Enforced by a systemd user scope, else a writable cgroup, else RLIMIT_NPROC (/health says which).' })
  localMaxProcesses?: string;

  @Flag('local-max-memory', { group: LOCAL, valueName: 'quantity|off', defaultText: '2Gi or a quarter of RAM, the smaller', description: 'Most memory per sandbox (the agent\'s own included); also sizes its /tmp (half) and /var/tmp (a quarter). off: no bound. Enforced like --local-max-processes; without a cgroup it is monitored every 500ms.' })
  localMaxMemory?: string;

  @Flag('local-max-disk', { group: LOCAL, valueName: 'quantity|off', defaultText: '4Gi', description: 'Most disk a session\'s /workspace may use: measured every 2s, a sandbox that grows past it is stopped (files kept; the result says why); no single file may exceed it. off: no bound.' })
  localMaxDisk?: string;

  @Flag('local-max-output', { group: LOCAL, valueName: 'quantity|off', defaultText: '256Mi', description: 'Most saved full outputs per session (/workspace/.cli-mcp/out), oldest deleted first. off: the agent\'s own retention (512Mi kept).' })
  localMaxOutput?: string;

  // The egress gateway (docs/egress.md); read and checked by readEgress (egress-flags.ts), which loads the kubeconfig.
  @Flag('egress-allow', { group: EGRESS, type: 'list', repeatable: true, valueName: 'host:port', description: 'A host:port sandboxes may reach through the egress gateway (exact, no wildcards; repeatable; env: comma-separated). Its addresses must be public.' })
  egressAllow!: string[];

  @Flag('egress-kubeconfig', { group: EGRESS, valueName: 'path', description: 'A kubeconfig whose clusters sandboxes may reach through the gateway, which injects its token or client certificate; sandboxes get a dummy kubeconfig ($KUBECONFIG) with a placeholder token.' })
  egressKubeconfig?: string;

  @Flag('egress-audit-log', { group: EGRESS, valueName: 'path', description: 'Append one JSON line per egress decision (session, host:port, path without query, status, decision) to this file (0600).' })
  egressAuditLog?: string;

  @Flag('max-sessions', { group: LOCAL, type: 'integer', valueName: 'n', default: '32', description: 'Most sandboxes alive at once; a new session beyond it is refused.' })
  @IntegerRange(1, 10_000)
  @Satisfies('holdsWarmPool', (max: number, s: ServerSettings) => s.warmPoolSize === undefined || s.warmPoolSize <= max, '$property must not be less than warmPoolSize')
  maxSessions!: number;

  @Flag('activity-interval', { group: KUBE, type: 'duration', valueName: 'duration', default: '30s', description: 'At most one last-activity update per session per interval.' })
  @DurationRange({ minMs: 1000, maxMs: HOUR_MS })
  activityIntervalMs!: number;
}
