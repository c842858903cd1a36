/**
 * Label and annotation keys and the selector strings built from them (C-K8S-1, Go §3.2). The selectors are
 * exact strings in the order instance, component, session-id: tests and the fake API server compare them
 * literally, and every replica must ask the API server the same question.
 */

/** Label: the owning server instance (`--instance-name`); scopes every query (C-K8S-1). */
export const INSTANCE_LABEL = 'cli-mcp.redhat.com/instance';
/** Label: marks sandbox pods and their Secrets. */
export const COMPONENT_LABEL = 'cli-mcp.redhat.com/component';
/** Value of {@link COMPONENT_LABEL} on sandbox pods and session Secrets. */
export const SANDBOX_COMPONENT = 'sandbox';
/** Value of {@link COMPONENT_LABEL} on the egress gateway's pods and objects (issue 20 item 3, C-EGR-1). */
export const EGRESS_GATEWAY_COMPONENT = 'egress-gateway';
/** Label: the session a pod or Secret belongs to; absent on unassigned (warm-pool) pods. */
export const SESSION_ID_LABEL = 'cli-mcp.redhat.com/session-id';

/** Annotation: when the pod was built (RFC 3339 UTC seconds). */
export const CREATED_AT_ANNOTATION = 'cli-mcp.redhat.com/created-at';
/** Annotation: last command activity (RFC 3339 UTC seconds); idle GC reads it (C-K8S-6, C-CTL-3). */
export const LAST_ACTIVITY_ANNOTATION = 'cli-mcp.redhat.com/last-activity';
/**
 * Annotation: when the pod's session began, on pool pods claimed by a session (RFC 3339 UTC seconds). Their
 * created-at is the pool's, so `--max-session-age` (C-CTL-7) counts from this instead; the controller stamps it
 * when it observes the claim, from the last-activity the claim patch wrote (C-K8S-6).
 */
export const CLAIMED_AT_ANNOTATION = 'cli-mcp.redhat.com/claimed-at';
/**
 * Annotation: hash of the desired pod spec (`sandboxSpecHash`). The warm-pool controller recreates
 * unassigned pods whose hash differs from the current configuration's (C-CTL-2).
 */
export const SPEC_HASH_ANNOTATION = 'cli-mcp.redhat.com/spec-hash';
/**
 * Annotation: why an unassigned pod must never be claimed. `token-conflict`: its agent answered `/assign` with
 * 409 for a token it does not hold (C-AG-13) — an earlier claim's `/assign` landed although its claimer saw a
 * failure. Claimers skip such pods and never delete them (a replica may still serve the pod it assigned); the
 * controller replaces them in the pool (C-CTL-6).
 */
export const UNCLAIMABLE_ANNOTATION = 'cli-mcp.redhat.com/unclaimable';

/**
 * Annotation: the gateway ClusterIP a pod without DNS was given in `hostAliases` (`--sandbox-dns none`, C-EGR-1).
 * A pool pod whose address is not the gate's current one (the Service was re-created) is stale: the controller
 * replaces it and claimers skip it.
 */
export const EGRESS_PROXY_ADDRESS_ANNOTATION = 'cli-mcp.redhat.com/egress-proxy-address';

/** Whether `pod` was built for another gateway address than `current` (unknown `current`: no). */
export function hasOtherProxyAddress(pod: { metadata?: { annotations?: Record<string, string> } }, current: string | undefined): boolean {
  const own = pod.metadata?.annotations?.[EGRESS_PROXY_ADDRESS_ANNOTATION];
  return current !== undefined && own !== undefined && own !== current;
}

/** Selector of every sandbox pod (assigned or not) of `instance`: `instance=<i>,component=sandbox`. */
export function sandboxSelector(instance: string): string {
  return `${INSTANCE_LABEL}=${instance},${COMPONENT_LABEL}=${SANDBOX_COMPONENT}`;
}

/** Selector of the pods (and Secret) of one session of `instance`: instance, component, session-id. */
export function assignedSelector(instance: string, sessionId: string): string {
  return `${sandboxSelector(instance)},${SESSION_ID_LABEL}=${sessionId}`;
}

/** Selector of claimable pods of `instance`: instance, component, and no session-id label. */
export function unassignedSelector(instance: string): string {
  return `${sandboxSelector(instance)},!${SESSION_ID_LABEL}`;
}

/** The labels every sandbox object of `instance` carries (plus the session label once assigned). */
export function sandboxLabels(instance: string, sessionId?: string): Record<string, string> {
  const labels: Record<string, string> = { [INSTANCE_LABEL]: instance, [COMPONENT_LABEL]: SANDBOX_COMPONENT };
  if (sessionId !== undefined) labels[SESSION_ID_LABEL] = sessionId;
  return labels;
}

/** The labels of the egress gateway pods of `instance` (its Service, PDB and NetworkPolicies select them). */
export function egressGatewayLabels(instance: string): Record<string, string> {
  return { [INSTANCE_LABEL]: instance, [COMPONENT_LABEL]: EGRESS_GATEWAY_COMPONENT };
}
