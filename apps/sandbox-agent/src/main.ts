import { configHelpText, loadAgentConfig } from './config/agent-config.js';
import { startAgent } from './agent-server.js';
import { makeNonDumpable, type DumpState } from './non-dumpable.js';
import { watchParent } from './parent-watch.js';
import { shellUserNameEnv } from './shell/user-name.js';

const parentPid = process.ppid;

// No top-level await: the bundle is one CommonJS file, which Node starts without its ESM loader (docs/agent.md).
function main(): void {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(configHelpText());
    process.exit(0);
  }
  if (args.length > 0) {
    process.stderr.write(`sandbox-agent: unknown argument(s): ${args.join(' ')} (configuration is by environment; see --help)\n`);
    process.exit(1);
  }

  const loaded = loadAgentConfig();
  if (!loaded.ok) {
    // C-AG-10: every problem at once, each naming its variable.
    process.stderr.write(`sandbox-agent: invalid configuration:\n${loaded.problems.map((p) => `  - ${p}`).join('\n')}\n`);
    process.exit(1);
  }

  // Before the shell starts (startAgent): no command may run while the agent is still dumpable (issue 22 item 4).
  const dumpState: DumpState = loaded.config.dumpable ? { nonDumpable: false, reason: 'SANDBOX_DUMPABLE=1' } : makeNonDumpable();
  if (loaded.config.exitWithParent) watchParent(parentPid);
  // A UID without a passwd entry (OpenShift) gets a name for the tools that ask (issue 22 item 7).
  const config = { ...loaded.config, shellEnv: { ...loaded.config.shellEnv, ...shellUserNameEnv(loaded.config.shellEnv) } };
  startAgent(config, dumpState).catch((err: unknown) => {
    process.stderr.write(`sandbox-agent: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}

main();
