import type { FlagReader } from '@cli-mcp/common';
import { parseQuantity } from '@cli-mcp/podspec';
import { BOUND_MINIMUMS, type BoundSetting } from '@cli-mcp/session';

/** `--local-max-*` as read: unset → the backend's default, `off` → no bound (docs/local-backend.md "Bounds"). */
export interface LocalBoundFlags {
  readonly maxProcesses?: BoundSetting;
  readonly maxMemoryBytes?: BoundSetting;
  readonly maxDiskBytes?: BoundSetting;
  readonly maxOutputBytes?: BoundSetting;
}

// The backend's minimums (the agent's own tasks, memory and files fit under each), checked here once.
const { tasks, memoryBytes, diskBytes, outputBytes } = BOUND_MINIMUMS;
const MIB = 2 ** 20;

export function readLocalBounds(flags: FlagReader): LocalBoundFlags {
  return {
    maxProcesses: readBound(flags, 'local-max-processes', 'count', tasks, 1_000_000, `between ${tasks} and 1000000`),
    maxMemoryBytes: readBound(flags, 'local-max-memory', 'bytes', memoryBytes, 2 ** 50, `between ${memoryBytes / MIB}Mi and 1Pi`),
    maxDiskBytes: readBound(flags, 'local-max-disk', 'bytes', diskBytes, 2 ** 50, `between ${diskBytes / MIB}Mi and 1Pi`),
    maxOutputBytes: readBound(flags, 'local-max-output', 'bytes', outputBytes, 2 ** 50, `between ${outputBytes / MIB}Mi and 1Pi`),
  };
}

function readBound(flags: FlagReader, name: string, kind: 'count' | 'bytes', min: number, max: number, range: string): BoundSetting | undefined {
  const text = flags.string(name)?.trim();
  if (text === undefined || text === '') return undefined;
  if (text === 'off') return 'off';
  let value: number;
  if (kind === 'count') {
    value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  } else {
    const parsed = parseQuantity(text, flags.label(name));
    if (!parsed.ok) {
      flags.fail(`${parsed.error} (or off)`);
      return undefined;
    }
    value = Number(parsed.value.numerator / parsed.value.denominator);
  }
  if (!Number.isInteger(value) || value < min || value > max) {
    flags.invalid(name, `must be off or ${kind === 'count' ? 'a whole number ' : ''}${range}; got ${JSON.stringify(text)}`);
    return undefined;
  }
  return value;
}
