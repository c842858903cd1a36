import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HmacKeyErrorCode, loadHmacKey, loadOrCreateHmacKey } from './hmac-key.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hmac-key-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe(loadHmacKey.name, () => {
  it('requires a path (Go message)', async () => {
    await expect(loadHmacKey(undefined)).rejects.toMatchObject({
      code: HmacKeyErrorCode.Missing,
      message: '--hmac-key-file is required',
    });
  });

  it('reports an unreadable file', async () => {
    await expect(loadHmacKey(join(dir, 'missing'))).rejects.toMatchObject({
      code: HmacKeyErrorCode.Unreadable,
      message: expect.stringContaining('failed to read HMAC key file'),
    });
  });

  it.each(['', '  \n\t\n'])('rejects an empty or whitespace-only file (%j)', async (content) => {
    const path = join(dir, 'key');
    await writeFile(path, content);
    await expect(loadHmacKey(path)).rejects.toMatchObject({
      code: HmacKeyErrorCode.Empty,
      message: `HMAC key file is empty or whitespace-only: ${path}`,
    });
  });

  it.each([
    ['secret\n', 'secret'],
    ['  my-hmac-key  \n', 'my-hmac-key'],
  ])('trims surrounding whitespace of %j', async (content, key) => {
    const path = join(dir, 'key');
    await writeFile(path, content);
    expect((await loadHmacKey(path)).key.toString()).toBe(key);
  });

  it('warns about keys shorter than 32 bytes, not about longer ones', async () => {
    const short = join(dir, 'short');
    const long = join(dir, 'long');
    await writeFile(short, 'secret');
    await writeFile(long, 'x'.repeat(32));
    expect((await loadHmacKey(short)).warning).toContain('6 bytes');
    expect((await loadHmacKey(long)).warning).toBeUndefined();
  });
});

describe(loadOrCreateHmacKey.name, () => {
  it('creates a private 64-hex-char key once and then reuses it', async () => {
    const path = join(dir, 'state', 'hmac.key');
    const first = await loadOrCreateHmacKey(path);
    expect(first.created).toBe(true);
    expect(first.key.toString()).toMatch(/^[0-9a-f]{64}$/);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'state'))).mode & 0o777).toBe(0o700);
    const second = await loadOrCreateHmacKey(path);
    expect(second.created).toBe(false);
    expect(second.key.equals(first.key)).toBe(true);
  });

  it('lets concurrent first starts agree on one complete key', async () => {
    const path = join(dir, 'hmac.key');
    const results = await Promise.all(Array.from({ length: 20 }, () => loadOrCreateHmacKey(path)));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const onDisk = (await readFile(path, 'utf8')).trim();
    for (const result of results) expect(result.key.toString()).toBe(onDisk);
  });

  it('keeps an existing key file untouched', async () => {
    const path = join(dir, 'hmac.key');
    await writeFile(path, 'operator-provided-key-of-sufficient-length-0000\n');
    const loaded = await loadOrCreateHmacKey(path);
    expect(loaded.created).toBe(false);
    expect(loaded.key.toString()).toBe('operator-provided-key-of-sufficient-length-0000');
  });
});
