import { createHash } from 'node:crypto';
import type { V1Deployment } from '@kubernetes/client-node';
import { DEPLOYMENTS, apiVersionOf, type KubeObject } from '../kube/resources.js';
import type { ResolvedInstance } from '../spec/resolve-instance.js';
import { childLabels, childNames, serverPodLabels, SERVER_COMPONENT } from './child-names.js';
import type { DesiredChild } from './desired-child.js';
import { ownerReference, type InstanceOwner } from './owner.js';
import { SERVER_PORT, serverArgs, TLS_DIR } from './server-args.js';

/** Pod-template annotation whose change rolls the server (C-OP-3): the args' inputs and the Secrets' identities. */
export const CONFIG_HASH_ANNOTATION = 'cli-mcp.redhat.com/config-hash';

/** What the server pods mount, by uid: a Secret deleted and recreated (new uid, new content) must roll them. */
export interface MountedSecrets {
  readonly hmacUid: string;
  readonly authUid: string;
  /**
   * `cli-mcp-<name>-tls` holds a usable pair: the server serves HTTPS from it (docs/operator.md "Admin Secrets").
   * Its uid is not hashed: the server re-reads a rotated pair itself, so a renewal must not roll the pods.
   */
  readonly tls: boolean;
}

/**
 * The MCP server Deployment of an instance (C-OP-3): the kustomize path's hardened server pod (deploy/base/
 * server-deployment.yaml: restricted security context, probes, spread, a drain grace of max-timeout + 20 s), with
 * args rendered from the CR, `replicas` from `spec.replicas` (0 while the instance must not serve: teardown,
 * refused egress), and the config hash that rolls the pods when a mounted Secret is replaced.
 */
export function serverDeployment(instance: ResolvedInstance, owner: InstanceOwner, secrets: MountedSecrets, replicas: number): DesiredChild {
  const names = childNames(instance.name);
  const args = serverArgs(instance, names.server, secrets.tls);
  const scheme = secrets.tls ? 'HTTPS' : 'HTTP';
  const selector = serverPodLabels(instance.name);
  const configHash = createHash('sha256').update(JSON.stringify({ args, image: instance.server.image, secrets: { hmacUid: secrets.hmacUid, authUid: secrets.authUid } })).digest('hex').slice(0, 16);
  const spread = (topologyKey: string) => ({ maxSkew: 1, topologyKey, whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: selector } });
  const deployment: V1Deployment = {
    apiVersion: apiVersionOf(DEPLOYMENTS),
    kind: DEPLOYMENTS.kind,
    metadata: { name: names.server, namespace: instance.podConfig.namespace, labels: childLabels(instance.name, SERVER_COMPONENT), ownerReferences: [ownerReference(owner)] },
    spec: {
      replicas,
      revisionHistoryLimit: 5,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: { ...childLabels(instance.name, SERVER_COMPONENT), ...selector }, annotations: { [CONFIG_HASH_ANNOTATION]: configHash } },
        spec: {
          serviceAccountName: names.server,
          enableServiceLinks: false,
          // In-flight commands may run up to --max-timeout; SIGTERM drains them for max-timeout + 10 s (C-HTTP-4).
          terminationGracePeriodSeconds: instance.podConfig.maxTimeoutSeconds + 20,
          securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
          topologySpreadConstraints: [spread('kubernetes.io/hostname'), spread('topology.kubernetes.io/zone')],
          containers: [
            {
              name: 'server',
              image: instance.server.image,
              ...(instance.server.imagePullPolicy ? { imagePullPolicy: instance.server.imagePullPolicy } : {}),
              args,
              ports: [{ name: 'http', containerPort: SERVER_PORT, protocol: 'TCP' }],
              startupProbe: { httpGet: { path: '/live', port: 'http', scheme }, periodSeconds: 2, failureThreshold: 30 },
              readinessProbe: { httpGet: { path: '/health', port: 'http', scheme }, periodSeconds: 10, timeoutSeconds: 6, failureThreshold: 3 },
              livenessProbe: { httpGet: { path: '/live', port: 'http', scheme }, periodSeconds: 20, timeoutSeconds: 5, failureThreshold: 3 },
              resources: { requests: { ...instance.server.resources.requests }, limits: { ...instance.server.resources.limits } },
              securityContext: {
                allowPrivilegeEscalation: false,
                privileged: false,
                readOnlyRootFilesystem: true,
                runAsNonRoot: true,
                capabilities: { drop: ['ALL'] },
                seccompProfile: { type: 'RuntimeDefault' },
              },
              volumeMounts: [
                { name: 'hmac', mountPath: '/etc/cli-mcp/hmac', readOnly: true },
                { name: 'auth', mountPath: '/etc/cli-mcp/auth', readOnly: true },
                { name: 'tmp', mountPath: '/tmp' },
                ...(secrets.tls ? [{ name: 'tls', mountPath: TLS_DIR, readOnly: true }] : []),
              ],
            },
          ],
          volumes: [
            { name: 'hmac', secret: { secretName: names.hmacSecret, items: [{ key: 'key', path: 'key' }] } },
            { name: 'auth', secret: { secretName: names.authSecret, items: [{ key: 'token', path: 'token' }] } },
            { name: 'tmp', emptyDir: { sizeLimit: '64Mi' } },
            ...(secrets.tls ? [{ name: 'tls', secret: { secretName: names.tlsSecret, items: [{ key: 'tls.crt', path: 'tls.crt' }, { key: 'tls.key', path: 'tls.key' }] } }] : []),
          ],
        },
      },
    },
  };
  return {
    resource: DEPLOYMENTS,
    object: deployment as KubeObject,
    owned: [['spec', 'replicas'], ['spec', 'revisionHistoryLimit'], ['spec', 'strategy'], ['spec', 'selector'], ['spec', 'template']],
    exact: [['spec', 'selector']],
  };
}
