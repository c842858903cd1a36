import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findNssWrapper, nssWrapperFiles } from './user-name.js';

const ETC_PASSWD = 'root:x:0:0:root:/root:/bin/bash\nsandbox:x:1001:0::/workspace:/bin/bash\n';
const ETC_GROUP = 'root:x:0:\n';

describe('nssWrapperFiles (a name for a UID without a passwd entry, issue 22 item 7)', () => {
  it('names the UID "sandbox", dropping the image\'s other sandbox entry so the name maps back to this UID', () => {
    const { passwd, group } = nssWrapperFiles({ uid: 123_456, gid: 0, home: '/workspace', etcPasswd: ETC_PASSWD, etcGroup: ETC_GROUP });
    expect(passwd.split('\n').filter(Boolean)).toEqual(['root:x:0:0:root:/root:/bin/bash', 'sandbox:x:123456:0:cli-mcp sandbox:/workspace:/bin/bash']);
    expect(group).toBe(ETC_GROUP);
  });

  it('adds a group entry for a GID the image does not name', () => {
    expect(nssWrapperFiles({ uid: 5000, gid: 5000, home: '/', etcPasswd: ETC_PASSWD, etcGroup: ETC_GROUP }).group).toBe('root:x:0:\nsandbox:x:5000:\n');
  });
});

describe('findNssWrapper', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('finds Debian\'s multiarch library and nothing where none is installed', () => {
    dir = mkdtempSync(join(tmpdir(), 'nss-'));
    expect(findNssWrapper([dir])).toBeUndefined();
    mkdirSync(join(dir, 'x86_64-linux-gnu'));
    writeFileSync(join(dir, 'x86_64-linux-gnu', 'libnss_wrapper.so'), '');
    expect(findNssWrapper([dir])).toBe(join(dir, 'x86_64-linux-gnu', 'libnss_wrapper.so'));
  });
});
