import type { AgentLog } from '../../logging/agent-logger.js';
import { BashProcess, type ShellExit, type ShellSpawnOptions, type StreamReceiver } from './bash-process.js';

export type ShellHealth = { ok: true } | { ok: false; error: string };

/**
 * Owns the persistent shell's life (C-AG-8): starts it, notices its death, hangs up the dead one's leftover jobs,
 * starts the replacement eagerly and remembers that the next command must carry the reset notice.
 */
export class ShellSupervisor {
  private shell: BashProcess | undefined;
  private resetPending = false;
  private spawnError: string | undefined;
  private shuttingDown = false;
  /** While a command runs it reads the dead shell's last bytes and retires the shell itself. */
  commandRunning = false;

  constructor(
    private readonly options: ShellSpawnOptions,
    private readonly idle: StreamReceiver,
    private readonly log: AgentLog,
  ) {}

  /** Starts a shell now if none runs (errors are kept for health and the next command). */
  start(): void {
    try {
      this.acquire();
    } catch {
      // Reported by health() and by the next acquire().
    }
  }

  /** C-AG-3: never waits. Unhealthy only when a shell cannot be started at all (a dead one is simply replaced). */
  health(): ShellHealth {
    if (this.shell?.isAlive) return { ok: true };
    if (!this.commandRunning) this.start();
    if (this.shell?.isAlive || this.spawnError === undefined) return { ok: true };
    return { ok: false, error: this.spawnError };
  }

  /** The live shell, starting one if needed. Throws ShellStartError when the shell binary cannot run. */
  acquire(): BashProcess {
    if (this.shell?.isAlive) return this.shell;
    if (this.shell) this.retire(this.shell);
    try {
      const shell = new BashProcess(this.options, this.idle);
      this.shell = shell;
      this.spawnError = undefined;
      shell.onExit((exit) => this.onExit(shell, exit));
      this.log.debug({ shell_pid: shell.pid }, 'shell started');
      return shell;
    } catch (err) {
      const message = (err as Error).message;
      if (message !== this.spawnError) this.log.error({ error: message }, 'cannot start shell');
      this.spawnError = message;
      throw err;
    }
  }

  /** Whether the next command runs in a replaced shell; reading it clears it. */
  takeReset(): boolean {
    const reset = this.resetPending;
    this.resetPending = false;
    return reset;
  }

  /** Hang up a dead shell's leftover jobs (as closing a terminal would; `nohup`ed ones survive) and start anew. */
  retire(shell: BashProcess): void {
    shell.signalSession('SIGHUP');
    shell.dispose();
    if (this.shell === shell) this.shell = undefined;
    if (this.shuttingDown) return;
    setImmediate(() => {
      if (!this.shell && !this.shuttingDown) this.start();
    });
  }

  /** C-AG-10: kill the shell and every job of it (its session); no respawn afterwards. */
  shutdown(): void {
    this.shuttingDown = true;
    this.shell?.signalSession('SIGKILL');
  }

  private onExit(shell: BashProcess, exit: ShellExit): void {
    if (this.shuttingDown) return;
    this.resetPending = true;
    this.log.warn({ shell_pid: shell.pid, code: exit.code, signal: exit.signal }, 'shell exited; the next command gets a fresh shell');
    if (!this.commandRunning) this.retire(shell);
  }
}
