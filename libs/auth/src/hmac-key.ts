import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { nodeCrypto } from './node-crypto.js';

/** Keys shorter than this still work but get a warning (C-AUTH-1). */
export const RECOMMENDED_KEY_BYTES = 32;

export enum HmacKeyErrorCode {
  Missing = 'HMAC_KEY_MISSING',
  Unreadable = 'HMAC_KEY_UNREADABLE',
  Empty = 'HMAC_KEY_EMPTY',
}

/** Key-file problems, with the Go server's messages (Go §8). */
export class HmacKeyError extends Error {
  constructor(
    readonly code: HmacKeyErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'HmacKeyError';
  }
}

export interface LoadedHmacKey {
  key: Buffer;
  /** Set when the key is shorter than RECOMMENDED_KEY_BYTES; the caller logs it (never the key itself). */
  warning?: string;
}

/**
 * Reads a key file: the whole file, surrounding whitespace trimmed, must be non-empty. The trimmed text's bytes
 * are the key (no decoding), so every replica derives the same tokens as the Go system did.
 */
export async function loadHmacKey(path: string | undefined): Promise<LoadedHmacKey> {
  if (!path) throw new HmacKeyError(HmacKeyErrorCode.Missing, '--hmac-key-file is required');
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new HmacKeyError(HmacKeyErrorCode.Unreadable, `failed to read HMAC key file: ${reason}`);
  }
  const trimmed = raw.trim();
  if (trimmed.length === 0) {
    throw new HmacKeyError(HmacKeyErrorCode.Empty, `HMAC key file is empty or whitespace-only: ${path}`);
  }
  const key = Buffer.from(trimmed, 'utf8');
  const warning =
    key.length < RECOMMENDED_KEY_BYTES
      ? `HMAC key is ${key.length} bytes; use at least ${RECOMMENDED_KEY_BYTES} (e.g. openssl rand -hex 32)`
      : undefined;
  return warning ? { key, warning } : { key };
}

/**
 * Returns the key at `path`, creating it first if the file does not exist: 32 random bytes as 64 hex chars
 * (printable, so trimming can never shorten it — Go §18.19), mode 0600 in a 0700 directory. The key is written
 * to a private temporary file and hard-linked into place, so concurrent first starts agree on one complete key.
 */
export async function loadOrCreateHmacKey(path: string): Promise<LoadedHmacKey & { created: boolean }> {
  let created = false;
  const temporary = `${path}.${process.pid}.${nodeCrypto().randomBytes(4).toString('hex')}.tmp`;
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await writeFile(temporary, `${nodeCrypto().randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    await link(temporary, path);
    created = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      const reason = error instanceof Error ? error.message : String(error);
      throw new HmacKeyError(HmacKeyErrorCode.Unreadable, `failed to create HMAC key file: ${reason}`);
    }
  } finally {
    await rm(temporary, { force: true });
  }
  return { ...(await loadHmacKey(path)), created };
}
