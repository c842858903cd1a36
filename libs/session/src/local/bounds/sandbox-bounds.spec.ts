import { describe, expect, it } from 'vitest';
import { defaultMemoryBytes, formatBytes, resolveBounds, tmpfsSizes } from './sandbox-bounds.js';

const GIB = 2 ** 30;

describe(resolveBounds.name, () => {
  it('bounds everything by default: 1024 tasks, the smaller of 2Gi or a quarter of RAM, 4Gi of disk, 256Mi of outputs', () => {
    expect(resolveBounds({}, 32 * GIB)).toEqual({ tasks: 1024, memoryBytes: 2 * GIB, diskBytes: 4 * GIB, outputBytes: 256 * 2 ** 20 });
    expect(defaultMemoryBytes(4 * GIB)).toBe(GIB);
    expect(defaultMemoryBytes(3 * GIB + 12_345)).toBe(768 * 2 ** 20);
  });

  it('takes explicit values, and off removes a bound', () => {
    expect(resolveBounds({ maxProcesses: 64, maxMemoryBytes: 'off', maxDiskBytes: 'off', maxOutputBytes: 2 ** 20 }, 8 * GIB))
      .toEqual({ tasks: 64, memoryBytes: undefined, diskBytes: undefined, outputBytes: 2 ** 20 });
  });

  it('formats sizes the way the flags take them', () => {
    expect([formatBytes(2 * GIB), formatBytes(1.25 * GIB), formatBytes(300 * 2 ** 20), formatBytes(588_800), formatBytes(1000)]).toEqual(['2Gi', '1.25Gi', '300Mi', '575Ki', '1000 bytes']);
  });
});

describe(tmpfsSizes.name, () => {
  it('sizes the private tmpfs directories within the memory bound, so a full /tmp leaves the processes room', () => {
    expect(tmpfsSizes(2 * GIB)).toEqual({ '/tmp': GIB, '/var/tmp': GIB / 2, '/run': 64 * 2 ** 20 });
    const small = tmpfsSizes(256 * 2 ** 20)!;
    expect(small['/tmp']! + small['/var/tmp']! + small['/run']!).toBeLessThan(256 * 2 ** 20);
    expect(tmpfsSizes(undefined)).toBeUndefined();
  });
});
