import type { V1Secret } from '@kubernetes/client-node';
import type { KubeObject } from '../kube/resources.js';
import type { RandomBytes } from '@cli-mcp/podspec';
import { childLabels, childNames, SERVER_COMPONENT } from '../children/child-names.js';
import { ownerReference, type InstanceOwner } from '../children/owner.js';

/**
 * The Secrets the operator generates for an instance (C-OP-2): the HMAC key (`cli-mcp-<name>-hmac`, key `key`)
 * that derives every session token (C-AUTH-1), and the bearer token (`cli-mcp-<name>-auth`, key `token`) clients
 * send on /mcp (C-MCP-8). Each is made once with 32 random bytes as lowercase hex — printable, so the server's
 * whitespace trim never shortens it (Go §18.19) — and never overwritten: rotating the HMAC key would break every
 * live session's token. A deleted one is made again (new uid: the config hash rolls the server). An admin may
 * create either beforehand with its own value; the operator then uses it as is.
 */
export interface GeneratedSecret {
  readonly name: string;
  readonly key: string;
  build(owner: InstanceOwner, namespace: string, randomBytes: RandomBytes): KubeObject & V1Secret;
}

export function generatedSecrets(instance: string): { hmac: GeneratedSecret; auth: GeneratedSecret } {
  const names = childNames(instance);
  const secret = (name: string, key: string): GeneratedSecret => ({
    name,
    key,
    build: (owner, namespace, randomBytes) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'Opaque',
      metadata: { name, namespace, labels: childLabels(instance, SERVER_COMPONENT), ownerReferences: [ownerReference(owner)] },
      data: { [key]: Buffer.from(Buffer.from(randomBytes(32)).toString('hex')).toString('base64') },
    }),
  });
  return { hmac: secret(names.hmacSecret, 'key'), auth: secret(names.authSecret, 'token') };
}

/** The text of `key` in a Secret as the server reads its file: trimmed; undefined when missing or blank. */
export function secretText(secret: V1Secret | undefined, key: string): string | undefined {
  const encoded = secret?.data?.[key];
  if (encoded === undefined) return undefined;
  const text = Buffer.from(encoded, 'base64').toString('utf8').trim();
  return text === '' ? undefined : text;
}
