import { registerDecorator, validateSync, type ValidationArguments, type ValidationError } from 'class-validator';
import { formatDuration } from '../duration.js';
import { rangeText, type FlagReader, type FlagValueKind } from '../flags/flag-reader.js';

/**
 * Typed, class-validator-checked settings fed by flags (C-CFG-1). A settings class declares one field per flag:
 *
 *   @FromFlag('max-output-chars', 'integer') @IntegerRange(1000, 10_000_000) maxOutputChars!: number;
 *
 * `readSettings(Class, flags)` reads each field through the flag layer (text → type, syntax problems named with
 * flag and env var), then validates the instance with class-validator and turns every violation into a problem
 * that names the field's flag and env var — all problems of one run together. Adding a flag is its table entry
 * (`FlagSpec`, for parsing and `--help`) plus one decorated field.
 *
 * Messages are templates: `{raw}` = the flag's text as given (quoted), `{value}` = the field's typed value,
 * `{flagOf:field}` / `{valueOf:field}` = another field's flag label / value. A message that starts with `{self}`
 * (the field's own flag label) is complete as it stands; any other is prefixed `--flag (env X): `.
 */

interface FieldBinding {
  readonly flag: string;
  readonly kind: FlagValueKind;
}

const BINDINGS = new WeakMap<object, Map<string, FieldBinding>>();

/** Binds the decorated field to flag `flag`, read as `kind` (default: the text). */
export function FromFlag(flag: string, kind: FlagValueKind = 'string'): PropertyDecorator {
  return (prototype, property) => {
    const fields = new Map(bindingsOf(prototype));
    fields.set(String(property), { flag, kind });
    BINDINGS.set(prototype, fields);
  };
}

function bindingsOf(prototype: object): ReadonlyMap<string, FieldBinding> {
  for (let p: object | null = prototype; p; p = Object.getPrototypeOf(p) as object | null) {
    const found = BINDINGS.get(p);
    if (found) return found;
  }
  return new Map();
}

/** Field → flag names of a settings class (for messages elsewhere). */
export function flagOfField<T extends object>(settings: new () => T, field: keyof T & string): string {
  const binding = bindingsOf(settings.prototype as object).get(field);
  if (!binding) throw new Error(`${settings.name}.${field} is not bound to a flag`); // programming error
  return binding.flag;
}

/**
 * A field rule: `test(value, settings)` must hold, else `message` (a template, see above). Unset fields
 * (`undefined`) pass unless `required`.
 */
export function Satisfies<T extends object>(test: (value: never, settings: T) => boolean, message: string, options: { required?: boolean } = {}): PropertyDecorator {
  return (prototype, property) => {
    registerDecorator({
      name: 'satisfies',
      target: prototype.constructor,
      propertyName: String(property),
      options: { message },
      validator: {
        validate: (value: unknown, args: ValidationArguments) =>
          value === undefined ? !options.required : test(value as never, args.object as T),
      },
    });
  };
}

/** A whole number within [min, max] (either bound optional). */
export function IntegerRange(min?: number, max?: number): PropertyDecorator {
  return Satisfies((value: number) => (min === undefined || value >= min) && (max === undefined || value <= max), `must be ${rangeText(min, max, String)}; got {value}`);
}

/** A duration (ms) within [min, max], optionally whole seconds (values sent to the agent in seconds). */
export function DurationRange(rule: { minMs?: number; maxMs?: number; wholeSeconds?: boolean }): PropertyDecorator {
  const within = Satisfies((ms: number) => (rule.minMs === undefined || ms >= rule.minMs) && (rule.maxMs === undefined || ms <= rule.maxMs), `must be ${rangeText(rule.minMs, rule.maxMs, formatDuration)}; got {raw}`);
  const whole = Satisfies((ms: number) => !rule.wholeSeconds || ms % 1000 === 0, 'must be a whole number of seconds; got {raw}');
  return (prototype, property) => {
    within(prototype, property);
    whole(prototype, property);
  };
}

/** One of `values`, exactly. */
export function OneOf(values: readonly string[]): PropertyDecorator {
  return Satisfies((value: string) => values.includes(value), `must be one of ${values.join(', ')}; got {raw}`);
}

/**
 * Reads and validates `Settings` from `flags`; every problem is recorded on `flags` (check `flags.problems`). Fields
 * whose text did not parse are left undefined and not validated further (one problem per mistake).
 */
export function readSettings<T extends object>(Settings: new () => T, flags: FlagReader): T {
  const settings = new Settings();
  const bindings = bindingsOf(Settings.prototype as object);
  const malformed = new Set<string>();
  for (const [field, { flag, kind }] of bindings) {
    const before = flags.problems.length;
    const value = flags.parse(flag, kind);
    if (flags.problems.length > before) malformed.add(field);
    (settings as Record<string, unknown>)[field] = value;
  }
  for (const error of flatten(validateSync(settings, { forbidUnknownValues: false }))) {
    if (malformed.has(error.property)) continue;
    const binding = bindings.get(error.property);
    for (const template of Object.values(error.constraints ?? {})) {
      const message = fill(template, error.property, settings as Record<string, unknown>, bindings, flags);
      if (!binding || template.startsWith('{self}')) flags.fail(message);
      else flags.invalid(binding.flag, message);
    }
  }
  return settings;
}

function flatten(errors: ValidationError[]): ValidationError[] {
  return errors.flatMap((error) => [error, ...flatten(error.children ?? [])]);
}

function fill(template: string, field: string, settings: Record<string, unknown>, bindings: ReadonlyMap<string, FieldBinding>, flags: FlagReader): string {
  const label = (name: string): string => {
    const binding = bindings.get(name);
    return binding ? flags.label(binding.flag) : name;
  };
  return template
    .replace(/\{self\}/g, () => label(field))
    .replace(/\{raw\}/g, () => {
      const binding = bindings.get(field);
      return JSON.stringify((binding && flags.string(binding.flag)) ?? '');
    })
    .replace(/\{value\}/g, () => String(settings[field]))
    .replace(/\{flagOf:(\w+)\}/g, (_, name: string) => label(name))
    .replace(/\{valueOf:(\w+)\}/g, (_, name: string) => String(settings[name]));
}
