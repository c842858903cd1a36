import { labelValueErrors, qualifiedNameErrors } from './names.js';

/** Operators of the label selector grammar (concepts: "Labels and Selectors"). */
export type LabelOperator = '=' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

/** One requirement; `values` is empty for `exists`/`!`. */
export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  values: string[];
}

/** Thrown for a malformed selector; the API server answers 400 BadRequest with this message. */
export class SelectorParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectorParseError';
  }
}

/** A parsed label selector: the comma-joined requirements must all hold (AND). */
export class LabelSelector {
  constructor(readonly requirements: readonly LabelRequirement[]) {}

  /** True when the selector has no requirements (matches everything). */
  get empty(): boolean {
    return this.requirements.length === 0;
  }

  matches(labels: Readonly<Record<string, string>> | undefined): boolean {
    const set = labels ?? {};
    return this.requirements.every((r) => requirementMatches(r, set));
  }
}

function requirementMatches(r: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case '=':
    case 'in':
      return has && r.values.includes(value as string);
    case '!=':
    case 'notin':
      // Both also match objects that do not carry the key at all (real selector semantics).
      return !has || !r.values.includes(value as string);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || !/^-?\d+$/.test(value as string)) return false;
      const actual = Number(value);
      const bound = Number(r.values[0]);
      return r.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

type TokenKind = 'ident' | 'in' | 'notin' | '!' | '=' | '==' | '!=' | '(' | ')' | ',' | '>' | '<' | 'eos';
interface Token {
  kind: TokenKind;
  text: string;
}

const SPECIAL = new Set(['!', '=', '(', ')', ',', '>', '<']);

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const ch = input[i] as string;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (SPECIAL.has(ch)) {
      const two = input.slice(i, i + 2);
      if (two === '!=' || two === '==') {
        tokens.push({ kind: two, text: two });
        i += 2;
      } else {
        tokens.push({ kind: ch as TokenKind, text: ch });
        i++;
      }
      continue;
    }
    let j = i;
    while (j < input.length && !SPECIAL.has(input[j] as string) && !/\s/.test(input[j] as string)) j++;
    const text = input.slice(i, j);
    tokens.push({ kind: text === 'in' ? 'in' : text === 'notin' ? 'notin' : 'ident', text });
    i = j;
  }
  tokens.push({ kind: 'eos', text: '' });
  return tokens;
}

class Parser {
  private pos = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.pos] as Token;
  }

  private next(): Token {
    const t = this.peek();
    if (t.kind !== 'eos') this.pos++;
    return t;
  }

  parse(): LabelRequirement[] {
    const out: LabelRequirement[] = [];
    if (this.peek().kind === 'eos') return out;
    for (;;) {
      const t = this.peek();
      if (t.kind !== 'ident' && t.kind !== '!') {
        throw new SelectorParseError(`found '${t.text}', expected: !, identifier, or 'end of string'`);
      }
      out.push(this.requirement());
      const sep = this.next();
      if (sep.kind === 'eos') return out;
      if (sep.kind !== ',') throw new SelectorParseError(`found '${sep.text}', expected: ',' or 'end of string'`);
      const after = this.peek();
      if (after.kind !== 'ident' && after.kind !== '!') {
        throw new SelectorParseError(`found '${after.text}', expected: identifier after ','`);
      }
    }
  }

  private requirement(): LabelRequirement {
    let negated = false;
    if (this.peek().kind === '!') {
      this.next();
      negated = true;
    }
    const keyToken = this.next();
    if (keyToken.kind !== 'ident') throw new SelectorParseError(`found '${keyToken.text}', expected: identifier`);
    const key = keyToken.text;
    if (negated) return validated({ key, operator: '!', values: [] });
    const following = this.peek().kind;
    if (following === 'eos' || following === ',') return validated({ key, operator: 'exists', values: [] });

    const opToken = this.next();
    switch (opToken.kind) {
      case '=':
      case '==':
        return validated({ key, operator: '=', values: [this.exactValue()] });
      case '!=':
        return validated({ key, operator: '!=', values: [this.exactValue()] });
      case '>':
        return validated({ key, operator: 'gt', values: [this.exactValue()] });
      case '<':
        return validated({ key, operator: 'lt', values: [this.exactValue()] });
      case 'in':
      case 'notin':
        return validated({ key, operator: opToken.kind, values: this.valueSet() });
      default:
        throw new SelectorParseError(`found '${opToken.text}', expected: =, !=, ==, in, notin, gt, lt`);
    }
  }

  private exactValue(): string {
    const t = this.peek();
    if (t.kind === 'eos' || t.kind === ',') return '';
    if (t.kind === 'ident' || t.kind === 'in' || t.kind === 'notin') {
      this.next();
      return t.text;
    }
    throw new SelectorParseError(`found '${t.text}', expected: identifier`);
  }

  private valueSet(): string[] {
    const open = this.next();
    if (open.kind !== '(') throw new SelectorParseError(`found '${open.text}', expected: '('`);
    const values: string[] = [];
    if (this.peek().kind === ')') {
      this.next();
      return values;
    }
    for (;;) {
      const t = this.peek();
      if (t.kind === ',' || t.kind === ')') values.push('');
      else if (t.kind === 'ident' || t.kind === 'in' || t.kind === 'notin') {
        this.next();
        values.push(t.text);
      } else throw new SelectorParseError(`found '${t.text}', expected: ',', ')' or identifier`);
      const sep = this.next();
      if (sep.kind === ')') return values;
      if (sep.kind !== ',') throw new SelectorParseError(`found '${sep.text}', expected: ',' or ')'`);
    }
  }
}

function validated(r: LabelRequirement): LabelRequirement {
  const keyErrors = qualifiedNameErrors(r.key);
  if (keyErrors.length > 0) {
    throw new SelectorParseError(`unable to parse requirement: key: Invalid value: ${JSON.stringify(r.key)}: ${keyErrors.join('; ')}`);
  }
  if ((r.operator === 'in' || r.operator === 'notin') && r.values.length === 0) {
    throw new SelectorParseError(
      `unable to parse requirement: values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty`,
    );
  }
  if (r.operator === 'gt' || r.operator === 'lt') {
    if (!/^-?\d+$/.test(r.values[0] ?? '')) {
      throw new SelectorParseError(
        `unable to parse requirement: values[0]: Invalid value: ${JSON.stringify(r.values[0])}: for 'Gt', 'Lt' operators, the value must be an integer`,
      );
    }
    return r;
  }
  r.values.forEach((v, i) => {
    const errors = labelValueErrors(v);
    if (errors.length > 0) {
      throw new SelectorParseError(
        `unable to parse requirement: values[${i}][${r.key}]: Invalid value: ${JSON.stringify(v)}: ${errors.join('; ')}`,
      );
    }
  });
  return r;
}

/**
 * Parses a label selector string (`a=b,c!=d,e in (f,g),h notin (i),j,!k,l>3`). Whitespace is allowed around
 * tokens. Callers pass the already URL-decoded query value (`URLSearchParams` turns `+` into a space).
 */
export function parseLabelSelector(input: string | null | undefined): LabelSelector {
  return new LabelSelector(new Parser(tokenize(input ?? '')).parse());
}

const EXPRESSION_OPERATORS: Record<string, LabelOperator> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/**
 * A `metav1.LabelSelector` object (`matchLabels` + `matchExpressions`) as a LabelSelector; an empty one matches
 * everything. Unknown operators match nothing (the object's validation reports them).
 */
export function labelSelectorOf(selector: unknown): LabelSelector {
  const object = (typeof selector === 'object' && selector !== null ? selector : {}) as { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] };
  const requirements: LabelRequirement[] = Object.entries(object.matchLabels ?? {}).map(([key, value]) => ({ key, operator: '=' as const, values: [value] }));
  for (const expression of object.matchExpressions ?? []) {
    const operator = EXPRESSION_OPERATORS[expression.operator];
    requirements.push(operator ? { key: expression.key, operator, values: expression.values ?? [] } : { key: expression.key, operator: 'in', values: [] });
  }
  return new LabelSelector(requirements);
}
