import { dnsSubdomainErrors, labelValueErrors, qualifiedNameErrors } from '../names.js';
import type { FieldError } from '../status.js';
import type { KubeObject } from '../types.js';

/**
 * Per-resource behaviour of the registry ("strategy" in apiserver terms). Hooks mutate objects in place;
 * `decode` throws a KubeApiError (400) the way the real JSON decoder rejects a body.
 */
export interface ResourceRules {
  /** Decoder-level checks (real server: 400 BadRequest "… cannot be handled as a …"). */
  decode?(body: KubeObject): void;
  /** Defaulting done on every write of the main resource (the real server defaults on decode). */
  applyDefaults?(object: KubeObject): void;
  /** Create-only preparation (e.g. the initial pod status). */
  prepareForCreate?(object: KubeObject): void;
  /** Main-resource update: carry over what the client may not change here (e.g. status). */
  prepareForUpdate?(next: KubeObject, old: KubeObject): void;
  validate?(object: KubeObject): FieldError[];
  validateUpdate?(next: KubeObject, old: KubeObject): FieldError[];
  /** Validation of a `/status` write (the object with its new status); none when absent. */
  validateStatus?(next: KubeObject, old: KubeObject): FieldError[];
  /** Removes fields the schema does not declare and returns their paths (custom resources' pruning). */
  prune?(object: KubeObject): string[];
  /** `status` is written like any other field (a custom resource without the status subresource). */
  statusIsOrdinaryField?: boolean;
  /** Finalizers the server adds when the object is first deleted (a CRD's `customresourcecleanup…`). */
  deleteFinalizers?: string[];
}

const MAX_ANNOTATIONS_BYTES = 256 * 1024;

/** ObjectMeta validation shared by every resource (name, labels, annotations, finalizers). */
export function validateObjectMeta(object: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const meta = object.metadata;
  if (meta.name) {
    for (const detail of dnsSubdomainErrors(meta.name)) errors.push({ type: 'Invalid', field: 'metadata.name', value: meta.name, detail });
  }
  for (const [key, value] of Object.entries(meta.labels ?? {})) {
    for (const detail of qualifiedNameErrors(key)) errors.push({ type: 'Invalid', field: 'metadata.labels', value: key, detail });
    if (typeof value !== 'string') {
      errors.push({ type: 'Invalid', field: `metadata.labels`, value, detail: 'label values must be strings' });
      continue;
    }
    for (const detail of labelValueErrors(value)) errors.push({ type: 'Invalid', field: 'metadata.labels', value, detail });
  }
  let annotationBytes = 0;
  for (const [key, value] of Object.entries(meta.annotations ?? {})) {
    for (const detail of qualifiedNameErrors(key.toLowerCase())) {
      errors.push({ type: 'Invalid', field: 'metadata.annotations', value: key, detail });
    }
    annotationBytes += Buffer.byteLength(key) + Buffer.byteLength(String(value));
  }
  if (annotationBytes > MAX_ANNOTATIONS_BYTES) {
    errors.push({ type: 'TooLong', field: 'metadata.annotations', detail: `must have at most ${MAX_ANNOTATIONS_BYTES} bytes` });
  }
  (meta.finalizers ?? []).forEach((finalizer, i) => {
    for (const detail of qualifiedNameErrors(finalizer)) {
      errors.push({ type: 'Invalid', field: `metadata.finalizers[${i}]`, value: finalizer, detail });
    }
  });
  return errors;
}
