import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { routeProcessWarnings } from './process-warnings.js';

function warning(message: string, code: string): Error & { code: string } {
  return Object.assign(new Error(message), { name: 'DeprecationWarning', code });
}

describe(routeProcessWarnings.name, () => {
  it('replaces Node\'s plain-text printer with one JSON log record per warning', () => {
    const proc = new EventEmitter();
    const printed: string[] = [];
    proc.on('warning', (w: Error) => printed.push(w.message)); // stands in for Node's default printer
    const logged: unknown[][] = [];
    routeProcessWarnings({ warn: (...args: unknown[]) => void logged.push(args) } as never, proc);
    proc.emit('warning', warning('url.parse() behavior is not standardized', 'DEP0169'));
    expect(printed).toEqual([]);
    expect(logged).toEqual([[{ warning: { name: 'DeprecationWarning', code: 'DEP0169', message: 'url.parse() behavior is not standardized' } }, 'node warning']]);
  });

  it('keeps --no-warnings silent (Node added no printer)', () => {
    const proc = new EventEmitter();
    const logged: unknown[] = [];
    routeProcessWarnings({ warn: (...args: unknown[]) => void logged.push(args) } as never, proc);
    proc.emit('warning', warning('x', 'DEP0040'));
    expect(logged).toEqual([]);
  });
});
