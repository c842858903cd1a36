export * from './sandbox-backend.port.js';
export * from './session-error.js';
export { SESSION_ID_PATTERN, assertValidSessionId, isValidSessionId } from './session-id.js';
export { DEFAULT_CACHE_TTL_MS, SessionCache, type SessionCacheOptions } from './session-cache.js';
export { SessionManager, type CancelOutcome, type SessionAgentPort, type SessionManagerOptions } from './session-manager.js';
export { SESSION_METRIC_NAMES, SessionMetrics, type AcquireTrigger, type ExecOutcome, type LookupResult, type LookupTier } from './session-metrics.js';
export { classifyAgentFailure, describeAgentFailure, type AgentFailureKind } from './agent-failure.js';
export { LocalBackend } from './local/local-backend.js';
export {
  LOCAL_DEFAULTS, type LocalAgentPort, type LocalBackendConfig, type LocalBackendDeps, type LocalBackendLogger, type LocalBackendOptions, type LocalEgressConfig,
  type LocalIsolation, type LocalNetwork, type SessionEndReason,
} from './local/local-backend.options.js';
export { defaultAgentEntry } from './local/default-agent-entry.js';
export { BOUND_DEFAULTS, BOUND_MINIMUMS, defaultMemoryBytes, type BoundSetting } from './local/bounds/sandbox-bounds.js';
export * from './kubernetes/index.js';
