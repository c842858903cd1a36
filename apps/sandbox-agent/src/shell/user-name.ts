import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

/** The name a UID without a passwd entry gets in the shell (the image's own user, 1001, has the same name). */
export const SANDBOX_USER_NAME = 'sandbox';

export interface UserNameInputs {
  readonly uid: number;
  readonly gid: number;
  readonly home: string;
  readonly etcPasswd: string;
  readonly etcGroup: string;
}

/**
 * passwd and group files for nss_wrapper that name `uid` SANDBOX_USER_NAME: the image's entries, minus any other
 * `sandbox` (so the name maps back to this UID), plus this UID's; a group entry for `gid` when it has none.
 */
export function nssWrapperFiles(input: UserNameInputs): { passwd: string; group: string } {
  const lines = (text: string) => text.split('\n').filter((line) => line.length > 0);
  const passwd = lines(input.etcPasswd).filter((line) => line.split(':')[0] !== SANDBOX_USER_NAME);
  passwd.push(`${SANDBOX_USER_NAME}:x:${input.uid}:${input.gid}:cli-mcp sandbox:${input.home}:/bin/bash`);
  const group = lines(input.etcGroup);
  if (!group.some((line) => line.split(':')[2] === String(input.gid))) group.push(`${SANDBOX_USER_NAME}:x:${input.gid}:`);
  return { passwd: `${passwd.join('\n')}\n`, group: `${group.join('\n')}\n` };
}

/** libnss_wrapper.so of the distribution (Debian: libnss-wrapper, under /usr/lib/<triplet>/), if installed. */
export function findNssWrapper(libDirs: readonly string[] = ['/usr/lib', '/usr/lib64']): string | undefined {
  for (const dir of libDirs) {
    const direct = join(dir, 'libnss_wrapper.so');
    if (existsSync(direct)) return direct;
    for (const entry of listDir(dir)) {
      const nested = join(dir, entry, 'libnss_wrapper.so');
      if (entry.includes('-linux-') && existsSync(nested)) return nested;
    }
  }
  return undefined;
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function hasPasswdEntry(): boolean {
  try {
    userInfo();
    return true;
  } catch {
    return false;
  }
}

/**
 * Issue 22 item 7: OpenShift runs images as an arbitrary UID that /etc/passwd does not name, and tools that ask
 * who they are (`whoami`, git, ssh) then fail. When this process has no passwd entry and nss_wrapper is
 * installed, writes passwd/group files naming it into a private temp folder (the root filesystem stays read-only)
 * and returns the environment that makes the shell's programs read them: LD_PRELOAD of nss_wrapper and its two
 * files, USER and LOGNAME. Returns {} when the UID has a name already, nss_wrapper is missing or nothing can be
 * written (the shell then runs as before, nameless).
 */
export function shellUserNameEnv(env: Readonly<Record<string, string>>, library = findNssWrapper()): Record<string, string> {
  if (hasPasswdEntry() || library === undefined || process.getuid === undefined || process.getgid === undefined) return {};
  try {
    const files = nssWrapperFiles({
      uid: process.getuid(), gid: process.getgid(), home: env['HOME'] ?? '/',
      etcPasswd: readFileSync('/etc/passwd', 'utf8'), etcGroup: readFileSync('/etc/group', 'utf8'),
    });
    const dir = mkdtempSync(join(tmpdir(), 'cli-mcp-user-'));
    writeFileSync(join(dir, 'passwd'), files.passwd, { mode: 0o644 });
    writeFileSync(join(dir, 'group'), files.group, { mode: 0o644 });
    return {
      LD_PRELOAD: env['LD_PRELOAD'] ? `${library}:${env['LD_PRELOAD']}` : library,
      NSS_WRAPPER_PASSWD: join(dir, 'passwd'),
      NSS_WRAPPER_GROUP: join(dir, 'group'),
      USER: env['USER'] ?? SANDBOX_USER_NAME,
      LOGNAME: env['LOGNAME'] ?? SANDBOX_USER_NAME,
    };
  } catch {
    return {};
  }
}
