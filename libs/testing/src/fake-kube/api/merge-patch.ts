import { cloneJson, isJsonObject } from './types.js';

/**
 * RFC 7386 JSON merge patch: objects merge recursively, `null` removes a key, anything else (arrays included)
 * replaces the target value whole. Returns a new value; the inputs are not modified.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return cloneJson(patch);
  const result: Record<string, unknown> = isJsonObject(target) ? cloneJson(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}
