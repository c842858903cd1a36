import { configKeyErrors } from '../names.js';
import { Statuses, type FieldError } from '../status.js';
import { isJsonObject, type KubeObject } from '../types.js';
import { immutableDataErrors } from './policy-rules.js';
import type { ResourceRules } from './resource-rules.js';

const MAX_SECRET_BYTES = 1024 * 1024;
const BASE64_CHAR = /[A-Za-z0-9+/]/;

/**
 * Position of the first byte Go's `base64.StdEncoding` rejects (it skips `\r`/`\n`), or -1 when `value` decodes.
 * Mirrors the `illegal base64 data at input byte N` wording of the real decoder.
 */
export function invalidBase64Offset(value: string): number {
  let symbols = 0;
  let padding = 0;
  for (let i = 0; i < value.length; i++) {
    const ch = value[i] as string;
    if (ch === '\r' || ch === '\n') continue;
    if (ch === '=') {
      padding++;
      if (padding > 2) return i;
      continue;
    }
    if (padding > 0 || !BASE64_CHAR.test(ch)) return i;
    symbols++;
  }
  return (symbols + padding) % 4 === 0 ? -1 : value.length;
}

function foldStringData(secret: KubeObject): void {
  const stringData = secret['stringData'];
  if (isJsonObject(stringData)) {
    const data = isJsonObject(secret['data']) ? (secret['data'] as Record<string, unknown>) : {};
    for (const [key, value] of Object.entries(stringData)) {
      data[key] = Buffer.from(String(value), 'utf8').toString('base64');
    }
    secret['data'] = data;
  }
  // stringData is write-only: it is merged into data and never stored or returned.
  delete secret['stringData'];
}

/** Secrets: base64 `data`, write-only `stringData`, `type` default `Opaque`, `immutable`. */
export const secretRules: ResourceRules = {
  decode(body) {
    const data = body['data'];
    if (data !== undefined && data !== null) {
      if (!isJsonObject(data)) throw Statuses.badRequest('Secret in version "v1" cannot be handled as a Secret: json: cannot unmarshal data into Go struct field Secret.data of type map[string][]uint8');
      for (const value of Object.values(data)) {
        if (value === null) continue;
        if (typeof value !== 'string') {
          throw Statuses.badRequest('Secret in version "v1" cannot be handled as a Secret: json: cannot unmarshal into Go struct field Secret.data of type []uint8');
        }
        const offset = invalidBase64Offset(value);
        if (offset >= 0) {
          throw Statuses.badRequest(`Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte ${offset}`);
        }
      }
    }
    const stringData = body['stringData'];
    if (stringData !== undefined && stringData !== null) {
      if (!isJsonObject(stringData) || Object.values(stringData).some((v) => typeof v !== 'string')) {
        throw Statuses.badRequest('Secret in version "v1" cannot be handled as a Secret: json: cannot unmarshal into Go struct field Secret.stringData of type string');
      }
    }
  },
  applyDefaults(secret) {
    foldStringData(secret);
    if (!secret['type']) secret['type'] = 'Opaque';
  },
  validate(secret) {
    const errors: FieldError[] = [];
    let total = 0;
    for (const [key, value] of Object.entries((secret['data'] as Record<string, string> | undefined) ?? {})) {
      for (const detail of configKeyErrors(key)) errors.push({ type: 'Invalid', field: `data[${key}]`, value: key, detail });
      total += Buffer.from(value ?? '', 'base64').length;
    }
    if (total > MAX_SECRET_BYTES) errors.push({ type: 'TooLong', field: 'data', detail: `must have at most ${MAX_SECRET_BYTES} bytes` });
    return errors;
  },
  validateUpdate(next, old) {
    const errors: FieldError[] = [];
    if (next['type'] !== old['type']) errors.push({ type: 'Invalid', field: 'type', value: next['type'], detail: 'field is immutable' });
    errors.push(...immutableDataErrors(next, old, ['data']));
    return errors;
  },
};
