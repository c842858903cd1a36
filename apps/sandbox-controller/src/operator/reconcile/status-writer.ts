import { randomBytes } from 'node:crypto';
import { canonicalJson } from '@cli-mcp/podspec';
import { errorText } from '@cli-mcp/common';
import { CLIMCP_API_VERSION, CLIMCP_KIND, type CliMcpInstance, type CliMcpInstanceStatus } from '../api/climcpinstance.js';
import { mergeConditions, type ConditionChange, type ConditionDecision } from '../api/conditions.js';
import { MANAGED_BY } from '../children/child-names.js';
import type { ObjectApi } from '../kube/object-api.port.js';
import { CLIMCP_INSTANCES, EVENTS, type KubeObject } from '../kube/resources.js';
import type { ControllerLogger } from '../../controller-logger.js';

/** The status a pass decided, before condition times are merged in. */
export interface DecidedStatus {
  readonly conditions: readonly ConditionDecision[];
  readonly warmPoolReady: number;
  readonly warmPoolDesired: number;
  readonly resolvedSandboxImage: string | undefined;
}

export interface StatusWriterDeps {
  readonly api: ObjectApi;
  readonly wallClock: () => Date;
  /** This operator process (the Event's reportingInstance). */
  readonly identity: string;
  readonly logger: ControllerLogger;
}

/**
 * Publishes an instance's status (C-OP-4) — a merge patch of the status subresource, sent only when something
 * changed, so an instance at rest costs no request (C-OP-6) — then one Event per condition that changed status or
 * reason (`Normal` when it became True, `Warning` otherwise), after the status write succeeded: an Event never
 * announces a status that was not stored. Events are best effort (a failure is logged, the pass goes on).
 */
export class StatusWriter {
  constructor(private readonly deps: StatusWriterDeps) {}

  async publish(cr: CliMcpInstance, decided: DecidedStatus, signal: AbortSignal): Promise<boolean> {
    const generation = cr.metadata.generation;
    const { conditions, changes } = mergeConditions(cr.status?.conditions, decided.conditions, generation, this.deps.wallClock());
    const status: CliMcpInstanceStatus = {
      ...(generation === undefined ? {} : { observedGeneration: generation }),
      warmPoolReady: decided.warmPoolReady,
      warmPoolDesired: decided.warmPoolDesired,
      ...(decided.resolvedSandboxImage === undefined ? {} : { resolvedSandboxImage: decided.resolvedSandboxImage }),
      conditions,
    };
    if (canonicalJson(status) === canonicalJson(cr.status ?? {})) return false;
    await this.deps.api.mergePatch(CLIMCP_INSTANCES, cr.metadata.name ?? '', { status: { ...status, resolvedSandboxImage: status.resolvedSandboxImage ?? null } }, signal, 'status');
    for (const change of changes) await this.event(cr, change, signal);
    return true;
  }

  private async event(cr: CliMcpInstance, change: ConditionChange, signal: AbortSignal): Promise<void> {
    const now = this.deps.wallClock().toISOString();
    const name = cr.metadata.name ?? '';
    const event: KubeObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${name}.${randomBytes(8).toString('hex')}`, namespace: cr.metadata.namespace },
      involvedObject: { apiVersion: CLIMCP_API_VERSION, kind: CLIMCP_KIND, name, namespace: cr.metadata.namespace, uid: cr.metadata.uid, resourceVersion: cr.metadata.resourceVersion },
      reason: change.reason,
      message: `${change.type} is ${change.status ? 'True' : 'False'}: ${change.message}`,
      type: change.status ? 'Normal' : 'Warning',
      source: { component: MANAGED_BY },
      reportingComponent: MANAGED_BY,
      reportingInstance: this.deps.identity,
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    };
    try {
      await this.deps.api.create(EVENTS, event, signal);
    } catch (error) {
      this.deps.logger.warn('could not record an event', { instance: name, reason: change.reason, error: errorText(error) });
    }
  }
}
