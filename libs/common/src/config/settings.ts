import { Max, Min, IsIn, ValidateBy, validateSync, type ValidationArguments, type ValidationError } from 'class-validator';
import { formatDuration } from '../duration.js';
import { rangeText, type FlagReader, type FlagValueKind } from '../flags/flag-reader.js';
import type { FlagSpec } from '../flags/flag-spec.js';

/**
 * Every flag is declared ONCE, on the field of a settings class that holds its typed value (C-CFG-1, issue 19
 * item 4): name, value type, `--help` text, default and group in `@Flag`, its rules in class-validator decorators.
 *
 *   @Flag('max-output-chars', { type: 'integer', valueName: 'n', default: '30000', description: '…' })
 *   @Min(1000) @Max(10_000_000)
 *   maxOutputChars!: number;
 *
 * `flagTable(Class)` derives the table that parsing and `--help` use; `readSettings(Class, flags)` reads each field
 * through the flag layer (text → type; syntax problems named with flag and env var), then validates the instance
 * with class-validator. Messages are class-validator's own (`$property must not be less than 1`) or written in its
 * style for our few custom rules; `readSettings` names the flag instead of the field — the leading field and any
 * other field a message mentions become `--flag (env NAME)` — and adds the value as given. Shared tables are
 * shared classes: the server's and the controller's settings extend the same ones, so a flag and its range
 * cannot differ between the two (docs/configuration.md, "One declaration per flag").
 */

/** What `@Flag` declares besides the name: the `FlagSpec` fields and how the text is read (default `string`). */
export interface FlagDeclaration extends Omit<FlagSpec, 'name' | 'kind'> {
  readonly type?: FlagValueKind;
}

interface FieldBinding {
  readonly flag: string;
  readonly type: FlagValueKind;
  readonly spec: FlagSpec;
  /** The class that declares it (its `@FlagGroup` is the default `--help` heading). */
  readonly owner: object;
}

const BINDINGS = new WeakMap<object, Map<string, FieldBinding>>();
const GROUPS = new WeakMap<object, string>();

/** The `--help` heading of every flag the class declares without its own `group`. */
export function FlagGroup(group: string): ClassDecorator {
  return (target) => {
    GROUPS.set(target.prototype as object, group);
  };
}

/** Declares flag `name` on the decorated field (see the module comment). */
export function Flag(name: string, declaration: FlagDeclaration): PropertyDecorator {
  const { type = 'string', ...rest } = declaration;
  const spec: FlagSpec = { name, ...rest, kind: type === 'boolean' ? 'boolean' : 'string' };
  return (prototype, property) => {
    const own = BINDINGS.get(prototype) ?? new Map<string, FieldBinding>();
    own.set(String(property), { flag: name, type, spec, owner: prototype });
    BINDINGS.set(prototype, own);
  };
}

/** Field → binding of a settings class, base classes first, each in declaration order. */
function bindingsOf(Settings: abstract new () => object): ReadonlyMap<string, FieldBinding> {
  const chain: object[] = [];
  for (let p: object | null = Settings.prototype as object; p && p !== Object.prototype; p = Object.getPrototypeOf(p) as object | null) chain.unshift(p);
  return new Map(chain.flatMap((p) => [...(BINDINGS.get(p) ?? new Map<string, FieldBinding>())]));
}

/** The flag table of a settings class (and its bases): what `readRawFlags`, `FlagReader` and `renderHelp` take. */
export function flagTable(...classes: ReadonlyArray<abstract new () => object>): FlagSpec[] {
  const seen = new Set<string>();
  return classes
    .flatMap((Settings) => [...bindingsOf(Settings).values()])
    .map(({ spec, owner }) => (spec.group === undefined && GROUPS.has(owner) ? { ...spec, group: GROUPS.get(owner) } : spec))
    .filter((spec) => !seen.has(spec.name) && seen.add(spec.name));
}

/** The flag bound to a field (for messages elsewhere). */
export function flagOfField<T extends object>(Settings: new () => T, field: keyof T & string): string {
  const binding = bindingsOf(Settings).get(field);
  if (!binding) throw new Error(`${Settings.name}.${field} is not bound to a flag`); // programming error
  return binding.flag;
}

/** A whole number within [min, max] (either bound optional): class-validator's `Min` and `Max`. */
export function IntegerRange(min?: number, max?: number): PropertyDecorator {
  return (prototype, property) => {
    if (min !== undefined) Min(min)(prototype, property);
    if (max !== undefined) Max(max)(prototype, property);
  };
}

/** One of `values`, exactly: class-validator's `IsIn`. */
export function OneOf(values: readonly string[]): PropertyDecorator {
  return IsIn([...values]);
}

/** A duration (ms) within [min, max], optionally whole seconds (values sent to the agent in seconds). */
export function DurationRange(rule: { minMs?: number; maxMs?: number; wholeSeconds?: boolean }): PropertyDecorator {
  const range = rangeText(rule.minMs, rule.maxMs, formatDuration);
  const within = ValidateBy({
    name: 'durationRange',
    validator: {
      validate: (ms: unknown) => typeof ms === 'number' && (rule.minMs === undefined || ms >= rule.minMs) && (rule.maxMs === undefined || ms <= rule.maxMs),
      defaultMessage: () => `$property must be ${range}`,
    },
  });
  const whole = ValidateBy({
    name: 'wholeSeconds',
    validator: { validate: (ms: unknown) => !rule.wholeSeconds || (typeof ms === 'number' && ms % 1000 === 0), defaultMessage: () => '$property must be a whole number of seconds' },
  });
  return (prototype, property) => {
    within(prototype, property);
    whole(prototype, property);
  };
}

/**
 * A rule over the settings object (a cross-flag rule): `test(value, settings)` must hold, else `message`, written
 * the class-validator way — `$property` and the names of other fields, which `readSettings` turns into flags.
 */
export function Satisfies<T extends object>(name: string, test: (value: never, settings: T) => boolean, message: string): PropertyDecorator {
  return ValidateBy({
    name,
    validator: { validate: (value: unknown, args?: ValidationArguments) => test(value as never, args!.object as T), defaultMessage: () => message },
  });
}

/**
 * Reads and validates `Settings` from `flags`; every problem is recorded on `flags` (check `flags.problems`). Unset
 * fields (`undefined`) are optional and skip their rules; fields whose text did not parse are left undefined and
 * not validated further (one problem per mistake).
 */
export function readSettings<T extends object>(Settings: new () => T, flags: FlagReader): T {
  const settings = new Settings();
  const bindings = bindingsOf(Settings);
  const malformed = new Set<string>();
  for (const [field, { flag, type }] of bindings) {
    const before = flags.problems.length;
    const value = flags.parse(flag, type);
    if (flags.problems.length > before) malformed.add(field);
    (settings as Record<string, unknown>)[field] = value;
  }
  // In table order (class-validator reports a subclass's fields before its base's).
  const order = [...bindings.keys()];
  const errors = flatten(validateSync(settings, { forbidUnknownValues: false, skipUndefinedProperties: true }));
  errors.sort((x, y) => order.indexOf(x.property) - order.indexOf(y.property));
  for (const error of errors) {
    const binding = bindings.get(error.property);
    if (malformed.has(error.property) || !binding) continue;
    for (const message of Object.values(error.constraints ?? {})) {
      const problem = nameFlags(message.replace(new RegExp(`^${error.property} `), ''), bindings, flags);
      const given = flags.string(binding.flag);
      flags.invalid(binding.flag, given === undefined ? problem : `${problem}; got ${JSON.stringify(given)}`);
    }
  }
  return settings;
}

function flatten(errors: ValidationError[]): ValidationError[] {
  return errors.flatMap((error) => [error, ...flatten(error.children ?? [])]);
}

/** Every field name a message mentions, as its flag label. */
function nameFlags(message: string, bindings: ReadonlyMap<string, FieldBinding>, flags: FlagReader): string {
  return message.replace(/\b[a-z][A-Za-z0-9]*\b/g, (word) => {
    const binding = bindings.get(word);
    return binding ? flags.label(binding.flag) : word;
  });
}
