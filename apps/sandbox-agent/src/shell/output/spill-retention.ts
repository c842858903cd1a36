/** Retention of saved full outputs (C-MCP-6): pure selection, so the policy is unit-tested without a disk. */

export interface SpillFileInfo {
  name: string;
  size: number;
}

export type SpillStream = 'stdout' | 'stderr';

const SPILL_NAME = /^(\d+)\.(stdout|stderr)$/;

export function spillFileName(seq: number, stream: SpillStream): string {
  return `${seq}.${stream}`;
}

/** Sequence number of a spill file name, or undefined for any other file (those are never touched). */
export function spillSeqOf(name: string): number | undefined {
  const match = SPILL_NAME.exec(name);
  return match ? Number(match[1]) : undefined;
}

/**
 * Names to delete so that at most `maxCommands` commands' files remain and their total size is at most
 * `maxTotalBytes`. Newest (highest sequence) first; once one command does not fit, it and every older one go.
 * The newest command is always kept, even when it alone exceeds the total cap.
 */
export function selectSpillFilesToDelete(files: SpillFileInfo[], maxCommands: number, maxTotalBytes: number): string[] {
  const bySeq = new Map<number, SpillFileInfo[]>();
  for (const file of files) {
    const seq = spillSeqOf(file.name);
    if (seq === undefined) continue;
    const group = bySeq.get(seq) ?? [];
    group.push(file);
    bySeq.set(seq, group);
  }
  const seqs = [...bySeq.keys()].sort((a, b) => b - a);
  const doomed: string[] = [];
  let kept = 0;
  let keptBytes = 0;
  let overflowing = false;
  for (const seq of seqs) {
    const group = bySeq.get(seq)!;
    const size = group.reduce((sum, f) => sum + f.size, 0);
    const fits = kept === 0 || (kept < maxCommands && keptBytes + size <= maxTotalBytes);
    if (!overflowing && fits) {
      kept++;
      keptBytes += size;
    } else {
      overflowing = true;
      doomed.push(...group.map((f) => f.name));
    }
  }
  return doomed;
}
