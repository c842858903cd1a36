import type { LocalBackendConfig, LocalBackendDeps, LocalBackendOptions } from '../src/local/local-backend.options.js';

/** Every key of `LocalBackendConfig`; the check below fails to compile when the interface gains one. */
const CONFIG_KEYS = [
  'stateDir', 'hmacKey', 'isolation', 'network', 'readOnlyBinds', 'maxProcesses', 'maxMemoryBytes', 'maxDiskBytes', 'maxOutputBytes',
  'defaultTimeoutSeconds', 'maxTimeoutSeconds', 'resetState', 'idleTimeoutMs', 'maxSessions', 'warmPoolSize', 'readyTimeoutMs',
  'secretPaths', 'extraEnv', 'egress',
] as const satisfies ReadonlyArray<keyof LocalBackendConfig>;
const complete: Exclude<keyof LocalBackendConfig, (typeof CONFIG_KEYS)[number]> extends never ? true : never = true;
void complete;

/**
 * Tests write one object of options (config values and seams side by side, overrides spread last); the backend
 * takes them as its two arguments, the way the server passes them.
 */
export function splitLocalOptions(options: LocalBackendOptions): [LocalBackendConfig, LocalBackendDeps] {
  const config: Record<string, unknown> = {};
  const deps: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) ((CONFIG_KEYS as readonly string[]).includes(key) ? config : deps)[key] = value;
  return [config as unknown as LocalBackendConfig, deps as LocalBackendDeps];
}
