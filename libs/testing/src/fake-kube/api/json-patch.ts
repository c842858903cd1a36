import { cloneJson, isJsonObject } from './types.js';

/** The patch document itself is malformed (real server: 400 BadRequest). */
export class JsonPatchDecodeError extends Error {
  override name = 'JsonPatchDecodeError';
}

/** A well-formed operation could not be applied, e.g. a failed `test` (real server: 422, see status.ts). */
export class JsonPatchApplyError extends Error {
  override name = 'JsonPatchApplyError';
}

/** One RFC 6902 operation. */
export interface JsonPatchOperation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  from?: string;
  value?: unknown;
}

const OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

/** Validates the shape of a JSON patch document. */
export function decodeJsonPatch(body: unknown): JsonPatchOperation[] {
  if (!Array.isArray(body)) throw new JsonPatchDecodeError('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  return body.map((raw) => {
    if (!isJsonObject(raw)) throw new JsonPatchDecodeError('json: cannot unmarshal value into Go value of type jsonpatch.Operation');
    const op = raw['op'];
    if (typeof op !== 'string' || !OPS.has(op)) throw new JsonPatchDecodeError(`Unexpected kind: ${String(op)}`);
    if (typeof raw['path'] !== 'string') throw new JsonPatchDecodeError(`${op} operation missing path`);
    if ((op === 'move' || op === 'copy') && typeof raw['from'] !== 'string') {
      throw new JsonPatchDecodeError(`${op} operation missing from`);
    }
    if ((op === 'add' || op === 'replace' || op === 'test') && !('value' in raw)) {
      throw new JsonPatchDecodeError(`${op} operation missing value`);
    }
    return raw as unknown as JsonPatchOperation;
  });
}

/** RFC 6901 pointer → reference tokens (`~1` → `/`, then `~0` → `~`). */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new JsonPatchApplyError(`JSON pointer must be empty or start with a "/": ${pointer}`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

type Container = Record<string, unknown> | unknown[];

function arrayIndex(token: string, length: number, allowEnd: boolean): number {
  if (allowEnd && token === '-') return length;
  if (!/^(0|[1-9]\d*)$/.test(token)) throw new JsonPatchApplyError(`invalid array index: ${token}`);
  const index = Number(token);
  if (index > length || (!allowEnd && index === length)) throw new JsonPatchApplyError(`array index out of bounds: ${index}`);
  return index;
}

/** Resolves the container holding the last token of `tokens`; throws when a step is missing. */
function parentOf(root: { doc: unknown }, tokens: string[], pointer: string, op: string): { parent: Container; key: string } {
  let current: unknown = root;
  let key = 'doc';
  for (const token of tokens) {
    const next = childOf(current, key);
    if (next === undefined || (typeof next !== 'object' || next === null)) {
      throw new JsonPatchApplyError(`${op} operation does not apply: doc is missing path: "${pointer}": missing value`);
    }
    current = next;
    key = token;
  }
  return { parent: current as Container, key };
}

function childOf(container: unknown, key: string): unknown {
  if (Array.isArray(container)) {
    if (!/^(0|[1-9]\d*)$/.test(key)) return undefined;
    return container[Number(key)];
  }
  if (isJsonObject(container)) return Object.prototype.hasOwnProperty.call(container, key) ? container[key] : undefined;
  return undefined;
}

function getAt(root: { doc: unknown }, pointer: string): { found: boolean; value?: unknown } {
  const tokens = parsePointer(pointer);
  let current: unknown = root.doc;
  for (const token of tokens) {
    if (Array.isArray(current) ? !/^(0|[1-9]\d*)$/.test(token) || Number(token) >= current.length : !isJsonObject(current) || !Object.prototype.hasOwnProperty.call(current, token)) {
      return { found: false };
    }
    current = Array.isArray(current) ? current[Number(token)] : (current as Record<string, unknown>)[token];
  }
  return { found: true, value: current };
}

function add(root: { doc: unknown }, pointer: string, value: unknown): void {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) {
    root.doc = value;
    return;
  }
  const { parent, key } = parentOf(root, tokens, pointer, 'add');
  if (Array.isArray(parent)) parent.splice(arrayIndex(key, parent.length, true), 0, value);
  else if (isJsonObject(parent)) parent[key] = value;
  else throw new JsonPatchApplyError(`add operation does not apply: doc is missing path: "${pointer}": missing value`);
}

function remove(root: { doc: unknown }, pointer: string): unknown {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) throw new JsonPatchApplyError('unable to remove the document root');
  const { parent, key } = parentOf(root, tokens, pointer, 'remove');
  if (Array.isArray(parent)) {
    const index = arrayIndex(key, parent.length, false);
    return parent.splice(index, 1)[0];
  }
  if (!Object.prototype.hasOwnProperty.call(parent, key)) {
    throw new JsonPatchApplyError(`Unable to remove nonexistent key: ${key}: missing value`);
  }
  const old = parent[key];
  delete parent[key];
  return old;
}

function replace(root: { doc: unknown }, pointer: string, value: unknown): void {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) {
    root.doc = value;
    return;
  }
  const { parent, key } = parentOf(root, tokens, pointer, 'replace');
  if (Array.isArray(parent)) parent[arrayIndex(key, parent.length, false)] = value;
  else if (Object.prototype.hasOwnProperty.call(parent, key)) parent[key] = value;
  else throw new JsonPatchApplyError(`replace operation does not apply: doc is missing key: ${pointer}: missing value`);
}

/** JSON equality independent of object key order. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  }
  if (isJsonObject(a) && isJsonObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

/**
 * Applies an RFC 6902 patch atomically (the input is not modified). Like the Go library the API server uses, a
 * `test` of a missing path with value `null` succeeds.
 */
export function applyJsonPatch(document: unknown, operations: readonly JsonPatchOperation[]): unknown {
  const root = { doc: cloneJson(document) };
  for (const op of operations) {
    switch (op.op) {
      case 'add':
        add(root, op.path, cloneJson(op.value));
        break;
      case 'remove':
        remove(root, op.path);
        break;
      case 'replace':
        replace(root, op.path, cloneJson(op.value));
        break;
      case 'move': {
        const from = op.from as string;
        if (op.path.startsWith(`${from}/`)) throw new JsonPatchApplyError(`move operation cannot move a value into its own child: ${from}`);
        const source = getAt(root, from);
        if (!source.found) throw new JsonPatchApplyError(`move operation does not apply: doc is missing from path: ${from}: missing value`);
        remove(root, from);
        add(root, op.path, source.value);
        break;
      }
      case 'copy': {
        const source = getAt(root, op.from as string);
        if (!source.found) throw new JsonPatchApplyError(`copy operation does not apply: doc is missing from path: ${op.from}: missing value`);
        add(root, op.path, cloneJson(source.value));
        break;
      }
      case 'test': {
        const actual = getAt(root, op.path);
        const ok = actual.found ? jsonEqual(actual.value, op.value) : op.value === null;
        if (!ok) throw new JsonPatchApplyError(`testing value ${op.path} failed: test failed`);
        break;
      }
    }
  }
  return root.doc;
}
