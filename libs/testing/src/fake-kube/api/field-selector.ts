import { SelectorParseError } from './label-selector.js';

/** One `field=value` / `field!=value` term. */
export interface FieldRequirement {
  field: string;
  operator: '=' | '!=';
  value: string;
}

/** Reads a supported field of an object as a string (missing → ''). */
export type FieldGetter = (object: Record<string, unknown>) => string;

/** A parsed field selector (terms ANDed). */
export class FieldSelector {
  constructor(readonly requirements: readonly FieldRequirement[]) {}

  get empty(): boolean {
    return this.requirements.length === 0;
  }

  /**
   * Throws a `SelectorParseError` worded `field label not supported: <f>` for the first field the resource
   * does not index (the real server's 400 BadRequest message).
   */
  assertSupported(fields: Readonly<Record<string, FieldGetter>>): void {
    for (const r of this.requirements) {
      if (!Object.prototype.hasOwnProperty.call(fields, r.field)) {
        throw new SelectorParseError(`field label not supported: ${r.field}`);
      }
    }
  }

  matches(object: Record<string, unknown>, fields: Readonly<Record<string, FieldGetter>>): boolean {
    return this.requirements.every((r) => {
      const getter = fields[r.field];
      const actual = getter ? getter(object) : '';
      return r.operator === '=' ? actual === r.value : actual !== r.value;
    });
  }
}

/** Splits on unescaped `sep`, keeping escapes in place. */
function splitUnescaped(input: string, sep: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < input.length; i++) {
    const ch = input[i] as string;
    if (ch === '\\' && i + 1 < input.length) {
      current += ch + (input[i + 1] as string);
      i++;
    } else if (ch === sep) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

function unescape(value: string, term: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i] as string;
    if (ch === '\\') {
      const next = value[i + 1];
      if (next === undefined || !'\\,=!'.includes(next)) {
        throw new SelectorParseError(`invalid field selector: '${term}'; invalid escape sequence`);
      }
      out += next;
      i++;
    } else if (ch === ',' || ch === '=') {
      throw new SelectorParseError(`invalid field selector: '${term}'; unescaped '${ch}'`);
    } else out += ch;
  }
  return out;
}

/** Finds the first unescaped occurrence of `op` in `term`. */
function indexOfUnescaped(term: string, op: string): number {
  for (let i = 0; i < term.length; i++) {
    if (term[i] === '\\') {
      i++;
      continue;
    }
    if (term.startsWith(op, i)) return i;
  }
  return -1;
}

/**
 * Parses a field selector (`metadata.name=x,status.phase!=Failed`; operators `=`, `==`, `!=`; `\` escapes
 * `,`, `=`, `!` and `\` in values).
 */
export function parseFieldSelector(input: string | null | undefined): FieldSelector {
  const text = input ?? '';
  if (text.trim() === '') return new FieldSelector([]);
  const requirements: FieldRequirement[] = [];
  for (const term of splitUnescaped(text, ',')) {
    let matched = false;
    for (const op of ['!=', '==', '='] as const) {
      const at = indexOfUnescaped(term, op);
      if (at < 0) continue;
      const field = term.slice(0, at).trim();
      const value = unescape(term.slice(at + op.length), term);
      requirements.push({ field, operator: op === '!=' ? '!=' : '=', value });
      matched = true;
      break;
    }
    if (!matched) throw new SelectorParseError(`invalid selector: '${term}'; can't understand '${term}'`);
  }
  return new FieldSelector(requirements);
}
