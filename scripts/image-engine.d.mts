// Types of scripts/image-engine.mjs for the TypeScript tests that drive the same engine.
export function findEngine(): string[] | undefined;
export function engineCommand(): string[];
export const ULIMIT_FLAGS: readonly string[];
