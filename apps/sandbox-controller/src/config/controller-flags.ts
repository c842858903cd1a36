import type { FlagSpec } from '@cli-mcp/common';
import { COMMAND_TIMEOUT_FLAGS, KUBERNETES_FLAGS } from '@cli-mcp/kube';

/** Env var prefix, shared with the server (C-CFG-1): `--warm-pool-size` ↔ `CLI_MCP_WARM_POOL_SIZE`. */
export const ENV_PREFIX = 'CLI_MCP_';

const CONTROLLER = 'Controller';
const KUBE = 'Kubernetes (the same flags and values as the server\'s --backend kubernetes)';
const OTHER = 'Other';

/** Every controller flag, in `--help` order. */
export const CONTROLLER_FLAGS: readonly FlagSpec[] = [
  { group: CONTROLLER, name: 'address', short: 'a', valueName: 'host:port', default: '127.0.0.1:8081', description: 'Listen address of /live, /health and /metrics (in a pod: 0.0.0.0:8081 for the probes).' },
  { group: CONTROLLER, name: 'identity', valueName: 'name', defaultText: '<hostname>-<random>', description: 'This candidate\'s holder identity in the leader Lease (unique per process; the pod name in a cluster).' },
  { group: CONTROLLER, name: 'warm-pool-size', valueName: 'n', default: '0', description: 'Unassigned sandbox pods kept ready for new sessions (C-CTL-2).' },
  { group: CONTROLLER, name: 'idle-timeout', valueName: 'duration', default: '30m', description: 'A session unused this long is deleted: its pods and Secret (C-CTL-3).' },
  { group: CONTROLLER, name: 'max-session-age', valueName: 'duration', defaultText: 'off', description: 'Sessions older than this are deleted whatever their activity (C-CTL-7); 0 or unset = off.' },
  { group: CONTROLLER, name: 'orphan-secret-grace', valueName: 'duration', default: '10m', description: 'A session Secret without any pod is deleted once it is older than this.' },
  { group: CONTROLLER, name: 'pool-shortfall-grace', valueName: 'duration', default: '5m', description: 'Fewer Ready pool pods than desired for longer than this shows in /health and a metric (C-CTL-8).' },
  { group: CONTROLLER, name: 'lease-duration', valueName: 'duration', default: '15s', description: 'Leader Lease duration: renewed every third of it; a crashed leader is replaced within it (C-CTL-1).' },

  ...KUBERNETES_FLAGS.map((spec) => ({ ...spec, group: KUBE })),
  // The agents of pool pods get them (C-AG-14): give the controller the server's values, or its pods differ.
  ...COMMAND_TIMEOUT_FLAGS.map((spec) => ({ ...spec, group: KUBE })),

  { group: OTHER, name: 'log-level', valueName: 'level', default: 'info', description: 'trace, debug, info, warn, error, fatal or silent (JSON lines on stderr).' },
  { group: OTHER, name: 'help', short: 'h', kind: 'boolean', noEnv: true, description: 'Print this help and exit.' },
  { group: OTHER, name: 'version', short: 'v', kind: 'boolean', noEnv: true, description: 'Print the version and exit.' },
];
