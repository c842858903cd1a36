import { mkdirSync, readdir as readdirCallback, readdirSync, stat as statCallback, unlink as unlinkCallback } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { SpillConfig } from '../../config/agent-config.js';
import type { AgentLog } from '../../logging/agent-logger.js';
import { SpillFile } from './spill-file.js';
import { selectSpillFilesToDelete, spillFileName, spillSeqOf, type SpillFileInfo, type SpillStream } from './spill-retention.js';

// node:fs's callback API, not node:fs/promises: on Node 24 that module (and what it loads: readline, fs watchers)
// adds ≈ 1.1 MB to every idle agent's RSS (issue 11, round 4), for a retention pass only output-heavy commands need.
const readdir = promisify(readdirCallback);
const stat = promisify(statCallback);
const unlink = promisify(unlinkCallback);

/**
 * `<outputDir>/out/<seq>.stdout|.stderr`: the full output of recent large commands, so the model can `grep` it
 * (C-MCP-6). Bounded by file count and total size; the oldest commands' files go first.
 */
export class SpillStore {
  private readonly outDir: string;
  private seq: number | undefined;
  private retention: Promise<void> = Promise.resolve();
  /** Commands whose files are still being written by a background job (C-MCP-11): never deleted, not counted. */
  private readonly pinned = new Set<number>();

  constructor(outputDir: string, private readonly limits: SpillConfig, private readonly log: AgentLog) {
    this.outDir = join(outputDir, 'out');
  }

  get thresholdBytes(): number {
    return this.limits.thresholdBytes;
  }

  /** Next command sequence number; continues after files left by an earlier agent in the same directory. */
  nextSeq(): number {
    if (this.seq === undefined) {
      this.seq = 0;
      try {
        for (const name of readdirSync(this.outDir)) this.seq = Math.max(this.seq, spillSeqOf(name) ?? 0);
      } catch {
        // No directory yet: start at 1.
      }
    }
    this.seq += 1;
    return this.seq;
  }

  /** Opens the file for one stream. Synchronous directory creation: it only happens for large outputs. */
  open(seq: number, stream: SpillStream): SpillFile | undefined {
    try {
      // Re-created every time: the user may have deleted it. 0700: outputs can hold secrets.
      mkdirSync(this.outDir, { recursive: true, mode: 0o700 });
    } catch (err) {
      this.log.warn({ code: (err as NodeJS.ErrnoException).code }, 'cannot create output directory');
      return undefined;
    }
    return new SpillFile(join(this.outDir, spillFileName(seq, stream)), this.limits.maxFileBytes, this.log);
  }

  pin(seq: number): void {
    this.pinned.add(seq);
  }

  unpin(seq: number): void {
    this.pinned.delete(seq);
  }

  /** Deletes files beyond the limits; runs in the background, one pass at a time. */
  enforceRetention(): Promise<void> {
    this.retention = this.retention.then(() => this.retentionPass()).catch((err: unknown) => {
      this.log.warn({ code: (err as NodeJS.ErrnoException).code }, 'output retention pass failed');
    });
    return this.retention;
  }

  private async retentionPass(): Promise<void> {
    const names = (await readdir(this.outDir)).filter((name) => {
      const seq = spillSeqOf(name);
      return seq !== undefined && !this.pinned.has(seq);
    });
    const files: SpillFileInfo[] = [];
    for (const name of names) {
      try {
        files.push({ name, size: (await stat(join(this.outDir, name))).size });
      } catch {
        // Deleted meanwhile.
      }
    }
    const doomed = selectSpillFilesToDelete(files, this.limits.maxCommands, this.limits.maxTotalBytes);
    await Promise.all(doomed.map((name) => unlink(join(this.outDir, name)).catch(() => undefined)));
  }
}
