import { isJsonObject } from './types.js';

/**
 * The subset of client-go's JSONPath that CRD printer columns use: `.a.b`, `['a']`, `[n]` (negative from the end),
 * `[*]`, `..` is not supported, and filters `[?(@.path=="v")]` / `!=` (string, number or boolean literals). A
 * leading `{`…`}` template is accepted. Hand-written: npm JSONPath engines use RFC 9535 or Goessner syntax, whose
 * filters and output formatting differ from Kubernetes' template dialect.
 */
export function evaluateJsonPath(object: unknown, expression: string): unknown[] {
  let text = expression.trim();
  if (text.startsWith('{') && text.endsWith('}')) text = text.slice(1, -1).trim();
  let current: unknown[] = [object];
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '.') {
      const match = /^\.([A-Za-z0-9_\-$]+)/.exec(text.slice(i));
      if (!match) {
        i++;
        continue;
      }
      current = current.flatMap((v) => (isJsonObject(v) && v[match[1] as string] !== undefined ? [v[match[1] as string]] : []));
      i += match[0].length;
    } else if (ch === '[') {
      const end = closingBracket(text, i);
      current = current.flatMap((v) => select(v, text.slice(i + 1, end).trim()));
      i = end + 1;
    } else throw new Error(`unrecognized JSONPath ${expression} at ${i}`);
  }
  return current;
}

function closingBracket(text: string, open: number): number {
  let quote: string | undefined;
  for (let i = open + 1; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === ']') return i;
  }
  throw new Error(`unterminated [ in JSONPath ${text}`);
}

function literal(text: string): unknown {
  const trimmed = text.trim();
  if (/^(["']).*\1$/.test(trimmed)) return trimmed.slice(1, -1);
  if (trimmed === 'true' || trimmed === 'false') return trimmed === 'true';
  return Number(trimmed);
}

function select(value: unknown, inner: string): unknown[] {
  const filter = /^\?\(@((?:\.[A-Za-z0-9_\-$]+)+)\s*(==|!=)\s*(.+)\)$/.exec(inner);
  if (filter) {
    if (!Array.isArray(value)) return [];
    const [, path, op, raw] = filter as unknown as [string, string, string, string];
    const wanted = literal(raw);
    return value.filter((item) => {
      const found = evaluateJsonPath(item, path);
      const equal = found.length > 0 && found[0] === wanted;
      return op === '==' ? equal : !equal;
    });
  }
  if (inner === '*') return Array.isArray(value) ? value : isJsonObject(value) ? Object.values(value) : [];
  if (/^-?\d+$/.test(inner)) {
    if (!Array.isArray(value)) return [];
    const index = Number(inner) < 0 ? value.length + Number(inner) : Number(inner);
    return index >= 0 && index < value.length ? [value[index]] : [];
  }
  const key = /^(["'])(.*)\1$/.exec(inner)?.[2];
  if (key !== undefined && isJsonObject(value) && value[key] !== undefined) return [value[key]];
  return [];
}
