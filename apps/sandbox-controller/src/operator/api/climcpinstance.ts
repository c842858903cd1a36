import type { V1EnvVar, V1ObjectMeta } from '@kubernetes/client-node';
import type { Condition } from './conditions.js';

/**
 * The `CliMcpInstance` custom resource as the operator reads it (deploy/operator/crd.yaml is the schema; C-OP-1).
 * Field names are the Go operator's, so its CRs apply unchanged; `sandbox.maxSessionAge` and `server` are this
 * project's additions. Everything is optional here: the operator re-validates what the API server defaulted and
 * checked (a CR written before a schema change, or by a server that skipped CEL, must not crash it).
 */
export const CLIMCP_GROUP = 'cli-mcp.redhat.com';
export const CLIMCP_VERSION = 'v1alpha1';
export const CLIMCP_API_VERSION = `${CLIMCP_GROUP}/${CLIMCP_VERSION}`;
export const CLIMCP_KIND = 'CliMcpInstance';
export const CLIMCP_PLURAL = 'climcpinstances';

/** Held on every instance until its teardown finished (C-OP-5); the Go operator's name. */
export const INSTANCE_FINALIZER = 'cli-mcp.redhat.com/finalizer';

/** A Kubernetes quantity as a CR carries it (`x-kubernetes-int-or-string`). */
export type QuantityValue = string | number;

export interface QuantityPair {
  cpu?: QuantityValue;
  memory?: QuantityValue;
}

export interface ResourceRequirements {
  requests?: QuantityPair;
  limits?: QuantityPair;
}

export type PullPolicy = 'Always' | 'Never' | 'IfNotPresent';

export interface SandboxSpec {
  image?: string;
  idleTimeout?: string;
  /** Addition: absolute session lifetime (C-CTL-7). */
  maxSessionAge?: string;
  warmPoolSize?: number;
  resources?: ResourceRequirements;
  env?: V1EnvVar[];
  imagePullPolicy?: PullPolicy;
}

export interface ServerContainerSpec {
  resources?: ResourceRequirements;
  imagePullPolicy?: PullPolicy;
}

/** Addition: the MCP server's own settings. */
export interface ServerSpec {
  yieldAfter?: string;
}

export interface ProxyTarget {
  type: 'kubernetes' | 'allowlist';
  secretName?: string;
  domains?: string[];
}

export interface ProxySpec {
  /** `none` (the default) or `cluster`: the server's `--sandbox-dns` (C-EGR-1). */
  sandboxDns?: string;
  targets: ProxyTarget[];
}

export interface CliMcpInstanceSpec {
  replicas?: number;
  sandbox?: SandboxSpec;
  serverContainer?: ServerContainerSpec;
  server?: ServerSpec;
  proxy?: ProxySpec;
}

export interface CliMcpInstanceStatus {
  observedGeneration?: number;
  warmPoolReady?: number;
  warmPoolDesired?: number;
  resolvedSandboxImage?: string;
  conditions?: Condition[];
}

export interface CliMcpInstance {
  apiVersion?: string;
  kind?: string;
  metadata: V1ObjectMeta;
  spec?: CliMcpInstanceSpec;
  status?: CliMcpInstanceStatus;
}
