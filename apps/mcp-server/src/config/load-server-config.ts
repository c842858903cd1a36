import { isAbsolute, join, resolve } from 'node:path';
import { RECOMMENDED_KEY_BYTES } from '@cli-mcp/auth';
import { FlagReader, type ConfigOutcome as AppConfigOutcome, errorText, hostnameOf, isLoopbackAddress, parseHostPort, readRawFlags, readSettings, renderHelp } from '@cli-mcp/common';
import { isValidSessionId } from '@cli-mcp/session';
import { readKubernetesSettings } from '@cli-mcp/kube';
import { defaultInstructions } from './instructions.js';
import type { AllowedHosts, HttpConfig, ServerConfig } from './server-config.js';
import { readEgress } from './egress-flags.js';
import { readLocalBounds } from './local-bounds-flags.js';
import { readTlsFiles } from './tls-flags.js';
import { ENV_PREFIX, SERVER_FLAGS, SERVER_HELP_GROUPS } from './server-flags.js';
import { ServerSettings } from './server-settings.js';

/** Side effects the loader needs, injected so tests run without files or randomness. */
export interface ConfigEnvironment {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly homeDir: string;
  readonly cwd: string;
  readonly version: string;
  readFile(path: string): Promise<string>;
  /** Suffix of the generated stdio session id. */
  randomSuffix(): string;
}

export type ConfigOutcome = AppConfigOutcome<ServerConfig>;

/**
 * Parses argv and env into the one typed configuration (C-CFG-1). Every problem is collected — each names its
 * flag and env var — and returned together; the caller prints them and exits non-zero before anything starts.
 */
export async function loadServerConfig(io: ConfigEnvironment): Promise<ConfigOutcome> {
  const flags = new FlagReader(SERVER_FLAGS, readRawFlags(SERVER_FLAGS, io.argv, io.env, ENV_PREFIX), ENV_PREFIX);
  if (flags.boolean('help')) return { kind: 'help', text: helpText(io.version) };
  if (flags.boolean('version')) return { kind: 'version', text: `cli-mcp-server ${io.version}\n` };
  const warnings: string[] = [];
  const settings = readSettings(ServerSettings, flags);
  const { transport, backend } = settings;

  const http = await readHttpConfig(flags, io, transport === 'http');
  if (transport === 'http' && !http.loopback && !http.allowedHosts.any && http.allowedHosts.names.length === 0) {
    warnings.push(
      `${flags.label('address')} is not loopback but ${flags.label('allowed-hosts')} is empty: requests whose Host ` +
        'is a DNS name other than a loopback name are refused with 403 (DNS-rebinding protection; IP addresses pass); list the names clients use',
    );
  }
  const stdioSessionId = readStdioSessionId(flags, io, transport);
  const instructions = await readInstructions(flags, io, settings.defaultTimeoutMs / 1000, settings.maxTimeoutMs / 1000);
  const stateDir = readStateDir(flags, io);
  const hmacKey = await readHmacKey(flags, io, stateDir, warnings);
  if (backend === 'kubernetes' && hmacKey.generate) {
    // Every replica must derive the same tokens, so the key is shared configuration, never generated (C-AUTH-1).
    flags.fail(`${flags.label('hmac-key-file')} is required with --backend kubernetes`);
  }
  // The agent in every pod caps at the server's max, not at its own default (C-AG-14).
  const kubernetes = readKubernetesSettings(flags, backend === 'kubernetes', settings.podTimeouts, warnings);
  const readOnlyBinds = flags.list('local-ro-bind').map((path) => resolve(io.cwd, path));
  const bounds = readLocalBounds(flags);
  const { network, egress } = await readEgress(flags, { backend, network: settings.localNetwork, stateDir, cwd: io.cwd, readFile: (path) => io.readFile(path) });

  const config: ServerConfig = {
    version: io.version,
    transport,
    http,
    stdioSessionId,
    backend,
    tool: {
      defaultTimeoutSeconds: settings.defaultTimeoutMs / 1000,
      maxTimeoutSeconds: settings.maxTimeoutMs / 1000,
      resultFormat: settings.resultFormat,
      maxOutputChars: settings.maxOutputChars,
      progressIntervalMs: settings.progressIntervalMs,
      // Default 50 s: below TARSy's fixed 60 s tool-call budget (C-MCP-11).
      yieldAfterMs: settings.yieldAfterMs,
      instructions,
    },
    cacheTtlMs: settings.cacheTtlMs,
    eagerAcquire: flags.isSet('eager-acquire') ? flags.boolean('eager-acquire') : true,
    shutdownGraceMs: settings.shutdownGraceMs ?? settings.maxTimeoutMs + 10_000,
    hmacKey,
    local: {
      stateDir,
      sandboxDir: transport === 'stdio' ? join(stateDir, 'stdio', stdioSessionId) : stateDir,
      resetState: flags.boolean('local-reset-state'),
      stdioSessionGenerated: !flags.isSet('session-id'),
      isolation: settings.localIsolation,
      network,
      egress,
      readOnlyBinds,
      ...bounds,
      maxSessions: settings.maxSessions,
      idleTimeoutMs: settings.idleTimeoutMs,
      warmPoolSize: settings.warmPoolSize,
    },
    kubernetes: {
      ...kubernetes.settings,
      podConfig: kubernetes.podConfig,
      activityIntervalMs: settings.activityIntervalMs,
    },
    readyTimeoutMs: settings.readyTimeoutMs,
    logLevel: settings.logLevel,
  };
  if (flags.problems.length > 0) return { kind: 'invalid', problems: flags.problems };
  return { kind: 'run', config, warnings };
}

export function helpText(version: string): string {
  return renderHelp(SERVER_FLAGS, {
    title: `cli-mcp-server ${version} — MCP server that gives AI agents a sandboxed, persistent bash shell.`,
    usage: 'cli-mcp-server [flags]',
    envPrefix: ENV_PREFIX,
    groupOrder: SERVER_HELP_GROUPS,
    footer: [
      'Every flag can also be set in the environment (the env name is listed); a flag on the command line wins.',
      'Durations use Go syntax: 90s, 5m, 1h30m. Empty values count as unset.',
    ].join('\n'),
  });
}

async function readHttpConfig(flags: FlagReader, io: ConfigEnvironment, active: boolean): Promise<HttpConfig> {
  const address = flags.string('address') ?? '127.0.0.1:8080';
  const allowedHosts = readAllowedHosts(flags);
  const authTokenFile = flags.string('auth-token-file');
  const inactive: HttpConfig = { address, host: '127.0.0.1', port: 8080, loopback: true, authToken: undefined, authTokenFile: undefined, allowedHosts, tls: undefined };
  const tls = await readTlsFiles(flags, io.cwd, (path) => io.readFile(path), active);
  if (!active) return inactive; // Go ignores --address for stdio (Go §2.4).
  const parsed = parseHostPort(address);
  if (!parsed.ok) {
    flags.invalid('address', `${parsed.error}; expected host:port such as 127.0.0.1:8080`);
    return inactive;
  }
  const loopback = isLoopbackAddress(address);
  const authToken = await readSecretFile(flags, io, 'auth-token-file');
  if (!loopback && !flags.isSet('auth-token-file')) {
    flags.fail(
      `HTTP transport requires a loopback ${flags.label('address')} (got ${JSON.stringify(address)}) unless ` +
        `${flags.label('auth-token-file')} sets an authentication boundary`,
    );
  }
  return {
    address,
    host: parsed.value.host,
    port: parsed.value.port,
    loopback,
    authToken,
    authTokenFile: authTokenFile === undefined ? undefined : resolve(io.cwd, authTokenFile),
    allowedHosts,
    tls,
  };
}

function readAllowedHosts(flags: FlagReader): AllowedHosts {
  const entries = flags.list('allowed-hosts');
  if (entries.includes('*')) return { any: true };
  const names: string[] = [];
  for (const entry of entries) {
    const name = hostnameOf(entry);
    if (name === undefined) flags.invalid('allowed-hosts', `${JSON.stringify(entry)} is not a host name`);
    else names.push(name);
  }
  return { any: false, names };
}

function readStdioSessionId(flags: FlagReader, io: ConfigEnvironment, transport: string): string {
  const given = flags.string('session-id');
  if (given === undefined) return `stdio-${io.randomSuffix()}`;
  if (transport !== 'stdio') {
    flags.invalid('session-id', 'is only used with --transport stdio (HTTP clients send an X-Session-ID header)');
  } else if (!isValidSessionId(given)) {
    flags.invalid('session-id', `${JSON.stringify(given)} is not an RFC 1123 label (a-z, 0-9 and "-", 1-63 characters)`);
  }
  return given;
}

async function readInstructions(flags: FlagReader, io: ConfigEnvironment, defaultSeconds: number, maxSeconds: number): Promise<string> {
  const fallback = defaultInstructions(defaultSeconds, maxSeconds);
  const path = flags.string('instructions-file');
  if (path === undefined) return fallback;
  try {
    const text = (await io.readFile(resolve(io.cwd, path))).trim();
    if (text === '') flags.invalid('instructions-file', `${path} is empty`);
    return text || fallback;
  } catch (error) {
    flags.invalid('instructions-file', `cannot read ${path}: ${errorText(error)}`);
    return fallback;
  }
}

/** Whole file, surrounding whitespace trimmed, non-empty (the same rule as key files, Go §8). */
async function readSecretFile(flags: FlagReader, io: ConfigEnvironment, name: string): Promise<string | undefined> {
  const path = flags.string(name);
  if (path === undefined) return undefined;
  try {
    const text = (await io.readFile(resolve(io.cwd, path))).trim();
    if (text !== '') return text;
    flags.invalid(name, `${path} is empty or whitespace-only`);
  } catch (error) {
    flags.invalid(name, `cannot read ${path}: ${errorText(error)}`);
  }
  return undefined;
}

function readStateDir(flags: FlagReader, io: ConfigEnvironment): string {
  const given = flags.string('state-dir');
  if (given !== undefined) return resolve(io.cwd, given);
  // XDG Base Directory: relative values are invalid and must be ignored.
  const xdg = io.env.XDG_STATE_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(io.homeDir, '.local', 'state');
  return join(base, 'cli-mcp-server');
}

async function readHmacKey(
  flags: FlagReader,
  io: ConfigEnvironment,
  stateDir: string,
  warnings: string[],
): Promise<ServerConfig['hmacKey']> {
  const given = flags.string('hmac-key-file');
  if (given === undefined) return { path: join(stateDir, 'hmac.key'), generate: true };
  const path = resolve(io.cwd, given);
  // Same rules and wording as libs/auth `loadHmacKey` (Go §8), read through the injected reader.
  try {
    const key = Buffer.from((await io.readFile(path)).trim(), 'utf8');
    if (key.length === 0) flags.invalid('hmac-key-file', `HMAC key file is empty or whitespace-only: ${path}`);
    else if (key.length < RECOMMENDED_KEY_BYTES) {
      warnings.push(`${flags.label('hmac-key-file')}: HMAC key is ${key.length} bytes; use at least ${RECOMMENDED_KEY_BYTES} (e.g. openssl rand -hex 32)`);
    }
  } catch (error) {
    flags.invalid('hmac-key-file', `failed to read HMAC key file: ${errorText(error)}`);
  }
  return { path, generate: false };
}

