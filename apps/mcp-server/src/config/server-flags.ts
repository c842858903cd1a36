import { CLI_MCP_ENV_PREFIX, flagTable, type FlagSpec } from '@cli-mcp/common';
import { KUBERNETES_GROUP, KubernetesSettings, SANDBOX_GROUP } from '@cli-mcp/kube';
import { EGRESS, KUBE, LOCAL, OTHER, SECURITY, SERVER, ServerSettings, TOOL } from './server-settings.js';

/** Env var prefix of every server flag (C-CFG-1): `--max-output-chars` ↔ `CLI_MCP_MAX_OUTPUT_CHARS`. */
export const ENV_PREFIX = CLI_MCP_ENV_PREFIX;

/** Every server flag, derived from the settings classes that declare them (one declaration per flag). */
export const SERVER_FLAGS: readonly FlagSpec[] = flagTable(ServerSettings, KubernetesSettings);

/** `--help` headings in order; the shared tables' headings are the controller's too. */
export const SERVER_HELP_GROUPS: readonly string[] = [SERVER, TOOL, SANDBOX_GROUP, SECURITY, LOCAL, EGRESS, KUBE, KUBERNETES_GROUP, OTHER];
