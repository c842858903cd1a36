import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { KUBECTL } from '../../../support/prerequisites.js';

export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

/** `deploy/base` and every folder of `deploy/overlays`, as kustomize targets relative to the repository. */
export function kustomizeTargets(): string[] {
  const overlays = join(REPO_ROOT, 'deploy/overlays');
  return ['deploy/base', ...readdirSync(overlays).sort().map((name) => `deploy/overlays/${name}`)];
}

/** `kubectl kustomize <target>`, parsed. */
export function render(target: string): Manifest[] {
  if (!KUBECTL) throw new Error('kubectl is not installed');
  const yaml = execFileSync(KUBECTL, ['kustomize', join(REPO_ROOT, target)], { encoding: 'utf8' });
  return parseAllDocuments(yaml).map((doc) => doc.toJS() as Manifest);
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }>;
}

/** Kubernetes LabelSelector semantics (an empty selector matches everything). */
export function selects(selector: LabelSelector | undefined, labels: Readonly<Record<string, string>>): boolean {
  if (!selector) return false;
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  return byLabels && (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
    switch (operator) {
      case 'In':
        return key in labels && values.includes(labels[key]!);
      case 'NotIn':
        return !(key in labels) || !values.includes(labels[key]!);
      case 'Exists':
        return key in labels;
      case 'DoesNotExist':
        return !(key in labels);
    }
  });
}

/**
 * Validates `manifest` against the Kubernetes OpenAPI schemas shipped by kubernetes-models (and the Prometheus
 * Operator CRDs by @kubernetes-models/prometheus-operator): offline, types and required fields. Returns the
 * validation error, or undefined; kinds without a maintained schema package return `unsupported`.
 */
export async function schemaProblem(manifest: Manifest): Promise<string | undefined | 'unsupported'> {
  const module = manifest.apiVersion.startsWith('monitoring.coreos.com/')
    ? `@kubernetes-models/prometheus-operator/${manifest.apiVersion}`
    : manifest.apiVersion.includes('.openshift.io/')
      ? undefined
      : `kubernetes-models/${manifest.apiVersion}`;
  if (module === undefined) return 'unsupported';
  const models = (await import(module)) as Record<string, new (data: unknown) => { validate(): void }>;
  const Model = models[manifest.kind];
  if (!Model) return `no schema for ${manifest.apiVersion} ${manifest.kind}`;
  try {
    new Model(manifest).validate();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
