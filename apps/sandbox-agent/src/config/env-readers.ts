/**
 * Small readers that turn one env value into a typed value or record a problem. They collect problems instead of
 * throwing so the agent can report every bad variable in one message (C-AG-10, engineering guide "Configuration").
 */
export type Env = Readonly<Record<string, string | undefined>>;

export class EnvProblems {
  readonly list: string[] = [];

  add(name: string, problem: string, value?: string): void {
    this.list.push(value === undefined ? `${name}: ${problem}` : `${name}: ${problem} (got ${JSON.stringify(value)})`);
  }
}

/** The raw value, or undefined when unset or empty (an empty variable means "use the default"). */
export function rawValue(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

export function readInteger(
  env: Env,
  problems: EnvProblems,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = rawValue(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw.trim())) {
    problems.add(name, `must be an integer between ${min} and ${max}`, raw);
    return fallback;
  }
  const value = Number(raw.trim());
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    problems.add(name, `must be an integer between ${min} and ${max}`, raw);
    return fallback;
  }
  return value;
}

export function readBoolean(env: Env, problems: EnvProblems, name: string, fallback: boolean): boolean {
  const raw = rawValue(env, name);
  if (raw === undefined) return fallback;
  const normalised = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(normalised)) return true;
  if (['0', 'false', 'no', 'off'].includes(normalised)) return false;
  problems.add(name, 'must be 1/0, true/false, yes/no or on/off', raw);
  return fallback;
}

export function readChoice<T extends string>(
  env: Env,
  problems: EnvProblems,
  name: string,
  fallback: T,
  choices: readonly T[],
): T {
  const raw = rawValue(env, name);
  if (raw === undefined) return fallback;
  const normalised = raw.trim().toLowerCase() as T;
  if (choices.includes(normalised)) return normalised;
  problems.add(name, `must be one of ${choices.join(', ')}`, raw);
  return fallback;
}
