/**
 * Validation of the identifiers that end up in Kubernetes names and label values. Pure string checks, no
 * throwing: callers turn a `false`/reason into their own error (C-MCP-7, C-CFG-1).
 */

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Maximum length of an RFC 1123 label (also the maximum hostname label and label-value length). */
export const DNS_LABEL_MAX_LENGTH = 63;

/** Maximum length of an RFC 1123 subdomain (names of Secrets, ServiceAccounts, RuntimeClasses). */
export const DNS_SUBDOMAIN_MAX_LENGTH = 253;

/**
 * Longest accepted `--instance-name`: 44, the bound the CliMcpInstance CRD puts on its name (the CR name is the
 * instance, C-OP-1), so the Go system's admin Secret `cli-mcp-<name>-kubeconfig` is still a 63-character label.
 * Derived names (`names.ts`) fit 63 characters at any length because they are truncated and hashed; up to 32
 * characters of instance a session Secret name `cli-mcp-auth-<instance>-<session>-<hash8>` still shows ≥ 8
 * characters of the session id, beyond that less (readability only: the hash keeps them distinct). The instance
 * is also a label value (≤ 63, C-K8S-1), which this bound implies.
 */
export const INSTANCE_NAME_MAX_LENGTH = 44;

/** Session ids: RFC 1123 label, used verbatim (C-MCP-7). Same pattern as the Go server (§2.3). */
const SESSION_ID = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** True when `value` is an RFC 1123 label: lowercase alphanumerics and `-`, alphanumeric at both ends, ≤ 63. */
export function isDnsLabel(value: string): boolean {
  return value.length <= DNS_LABEL_MAX_LENGTH && DNS_LABEL.test(value);
}

/** True when `value` is an RFC 1123 subdomain: dot-separated labels, ≤ 253 characters. */
export function isDnsSubdomain(value: string): boolean {
  return (
    value.length <= DNS_SUBDOMAIN_MAX_LENGTH &&
    DNS_SUBDOMAIN.test(value) &&
    value.split('.').every((label) => label.length <= DNS_LABEL_MAX_LENGTH)
  );
}

/** True when `sessionId` is a valid session id: `^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$` (C-MCP-7). */
export function isValidSessionId(sessionId: string): boolean {
  return SESSION_ID.test(sessionId);
}

/**
 * Why `name` is not a usable `--instance-name`, or `undefined` when it is: an RFC 1123 label of at most
 * {@link INSTANCE_NAME_MAX_LENGTH} characters (it is a label value and a name component, C-K8S-1/2).
 */
export function instanceNameProblem(name: string): string | undefined {
  if (!DNS_LABEL.test(name)) {
    return 'must be a DNS-1123 label (lowercase letters, digits and "-", starting and ending with a letter or digit)';
  }
  if (name.length > INSTANCE_NAME_MAX_LENGTH) {
    return `must be at most ${INSTANCE_NAME_MAX_LENGTH} characters (got ${name.length})`;
  }
  return undefined;
}

/** True when `name` is a usable `--instance-name` (see {@link instanceNameProblem}). */
export function isValidInstanceName(name: string): boolean {
  return instanceNameProblem(name) === undefined;
}
