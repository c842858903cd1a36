import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/fakes.js';
import { FakeLauncher, flush } from '../../test/local-fakes.js';
import { SessionErrorCode } from '../session-error.js';
import { SandboxSetupFailed, startAgent, stopAgent } from './sandbox-process.js';

const spec = { command: 'node', args: ['main.js'], env: {}, cwd: '/w' };
/** A TCP agent's ready line (the port), as the Kubernetes image's agent reports it; local agents say `unix`. */
const urlFor = (line: string) => (/^[1-9]\d{0,4}$/.test(line) && Number(line) < 65_536 ? `http://127.0.0.1:${line}` : undefined);
const options = (signal = new AbortController().signal) => ({ clock: new FakeClock(), readyTimeoutMs: 1000, signal, urlFor });

describe('startAgent', () => {
  it('returns the agent URL for the ready line', async () => {
    const launcher = new FakeLauncher();
    const started = await startAgent(launcher, spec, options());
    expect(started.url).toBe('http://127.0.0.1:40000');
  });

  it('rejects an invalid ready line and kills the process', async () => {
    const launcher = new FakeLauncher();
    launcher.autoReady = false;
    const pending = startAgent(launcher, spec, options());
    launcher.launched[0]!.becomeReady(70_000);
    await expect(pending).rejects.toThrow('start sandbox: agent reported an invalid endpoint "70000"');
    expect(launcher.launched[0]!.hasExited).toBe(true);
  });

  it('maps the caller abort to Cancelled and kills the process', async () => {
    const launcher = new FakeLauncher();
    launcher.autoReady = false;
    const controller = new AbortController();
    const pending = startAgent(launcher, spec, options(controller.signal));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: SessionErrorCode.Cancelled });
    expect(launcher.launched[0]!.signals).toEqual(['SIGKILL']);
  });
});

describe('stopAgent', () => {
  it('does nothing for an exited process', async () => {
    const launcher = new FakeLauncher();
    const child = launcher.launch(spec);
    child.crash();
    await flush();
    await stopAgent(child, new FakeClock(), 1000);
    expect(child.signals).toEqual([]);
  });

  it('stops with SIGTERM when that suffices, else SIGKILL after the grace', async () => {
    const clock = new FakeClock();
    const launcher = new FakeLauncher();
    const polite = launcher.launch(spec);
    await stopAgent(polite, clock, 1000);
    expect(polite.signals).toEqual(['SIGTERM']);
    expect(clock.pending()).toEqual([]);
    const stubborn = launcher.launch(spec);
    stubborn.exitsOnTerm = false;
    const stopping = stopAgent(stubborn, clock, 1000);
    await flush();
    clock.advance(1000);
    await stopping;
    expect(stubborn.signals).toEqual(['SIGTERM', 'SIGKILL']);
  });
});

describe('startAgent setup failures', () => {
  it('marks a bubblewrap failure before the agent ran as a setup failure (safe to retry)', async () => {
    const launcher = new FakeLauncher();
    launcher.autoReady = false;
    const pending = startAgent(launcher, spec, options());
    const child = launcher.launched[0]!;
    child.stderrLine = 'bwrap: loopback: Failed RTM_NEWADDR: No child processes';
    child.crash(1);
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxSetupFailed);
    expect((error as Error).message).toBe('start sandbox: agent exited with code 1 before it was ready: bwrap: loopback: Failed RTM_NEWADDR: No child processes');
  });
});
