// Takes the state-dir lock of argv[2] once a shared start time (argv[3], epoch ms) is reached, so two processes
// try at the same moment; prints "won" or the refusal, then holds the lock until killed.
import { FsWorkspaceStore } from '../../../../libs/session/src/local/workspace-store.ts';

const [stateDir, startAt] = process.argv.slice(2);
while (Date.now() < Number(startAt)) { /* spin to the shared start */ }
try {
  await new FsWorkspaceStore(stateDir).prepare();
  process.stdout.write('won\n');
} catch (error) {
  process.stdout.write(`${error.message}\n`);
}
setInterval(() => undefined, 60_000);
