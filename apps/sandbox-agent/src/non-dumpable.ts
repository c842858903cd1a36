/**
 * Issue 22 item 4: the commands the agent runs must not trace it (`strace -p $PPID`, `gdb -p`) nor read its
 * `/proc/<pid>/environ` (the session token, when it came in the environment) or `/proc/<pid>/mem`. They run as the
 * agent's own user, so the kernel's ptrace access check lets them — unless the agent is not dumpable: then it asks
 * for CAP_SYS_PTRACE in the agent's user namespace, which no sandbox command has (ptrace(2), "Ptrace access mode
 * checking"). Node has no prctl(2), so it is called through our own Node-API addon, native/non-dumpable (one C
 * function; ABI-stable, so one build serves every Node release).
 * The flag is per process and execve of a readable binary resets it, so bash and what it runs stay dumpable:
 * they are the user's own (docs/security.md "The agent out of its commands' reach").
 */

/** prctl(2) options (linux/prctl.h). */
const PR_GET_DUMPABLE = 3;
const PR_SET_DUMPABLE = 4;

/** prctl(2) with the arguments this module needs; returns what the system call returns. */
export type Prctl = (option: number, value: number) => number;

/** Whether the agent made itself non-dumpable, and if not, why (logged at start, shown by `/health`). */
export type DumpState = { readonly nonDumpable: true } | { readonly nonDumpable: false; readonly reason: string };

/** Makes the calling process non-dumpable and checks that it took; `load` is the port to prctl(2). */
export function makeNonDumpable(load: () => Prctl = loadPrctl): DumpState {
  let prctl: Prctl;
  try {
    prctl = load();
  } catch (err) {
    // The first line: Node appends the require stack, full of host paths.
    return { nonDumpable: false, reason: `prctl(2) is unavailable: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}` };
  }
  if (prctl(PR_SET_DUMPABLE, 0) !== 0) return { nonDumpable: false, reason: 'prctl(PR_SET_DUMPABLE, 0) failed' };
  const now = prctl(PR_GET_DUMPABLE, 0);
  return now === 0 ? { nonDumpable: true } : { nonDumpable: false, reason: `PR_GET_DUMPABLE still says ${now}` };
}

/** The addon's exports (native/non-dumpable/prctl.c). */
interface NonDumpableAddon {
  prctl(option: number, value: number): number;
}

/** The addon's package; its `main` is the compiled module (build/Release/non_dumpable.node). */
const ADDON = '@cli-mcp/non-dumpable';

/**
 * The default port: prctl(option, value, 0, 0, 0) through the addon, which `npm ci` compiles with node-gyp as it
 * does node-pty (an optional dependency: without a compiler the install still succeeds, and the agent says why it
 * stayed dumpable). Loading it costs ~0.3 MB of resident memory (mostly Node's own code for loading an addon) and
 * ~1 ms; the FFI library it replaced cost ~2.8 MB (bench/agent.bench.mjs, docs/agent.md "Start-up and footprint").
 */
export function loadPrctl(): Prctl {
  if (process.platform !== 'linux') throw new Error(`not Linux (${process.platform})`);
  // Synchronous: the bundle is CommonJS and must not start Node's ES-module loader (docs/agent.md) — which merely
  // loading `node:module` does (its `register` export), so it is fetched only by the unbundled ES-module build
  // (tests), which has no `require` of its own and runs on that loader anyway.
  const requireHere = typeof require === 'function'
    ? require
    : (process.getBuiltinModule('node:module') as typeof import('node:module')).createRequire(import.meta.url);
  const addon = requireHere(ADDON) as NonDumpableAddon;
  return (option, value) => addon.prctl(option, value);
}
