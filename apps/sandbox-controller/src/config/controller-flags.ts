import { CLI_MCP_ENV_PREFIX, flagTable, type FlagSpec } from '@cli-mcp/common';
import { KUBERNETES_GROUP, KubernetesSettings, SANDBOX_GROUP } from '@cli-mcp/kube';
import { CONTROLLER, ControllerSettings, OTHER } from './controller-settings.js';
import { OPERATOR_GROUP, OperatorSettings } from './operator-settings.js';

/** Env var prefix, shared with the server (C-CFG-1): `--warm-pool-size` ↔ `CLI_MCP_WARM_POOL_SIZE`. */
export const ENV_PREFIX = CLI_MCP_ENV_PREFIX;

/** Every controller flag, derived from the settings classes that declare them (one declaration per flag). */
export const CONTROLLER_FLAGS: readonly FlagSpec[] = flagTable(ControllerSettings, KubernetesSettings, OperatorSettings);

/** `--help` headings in order; the shared tables' headings are the server's too. */
export const CONTROLLER_HELP_GROUPS: readonly string[] = [CONTROLLER, SANDBOX_GROUP, KUBERNETES_GROUP, OPERATOR_GROUP, OTHER];
