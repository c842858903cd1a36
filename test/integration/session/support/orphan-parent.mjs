// A throwaway server stand-in for the orphan test: creates sessions through LocalBackend, prints every pid of
// its process tree as one JSON line, then waits to be killed with SIGKILL (no chance to clean up).
import { LocalBackend } from '../../../../libs/session/src/index.ts';

const [stateDir, isolation, agentEntry] = process.argv.slice(2);
const backend = new LocalBackend({ stateDir, isolation, agentEntry, hmacKey: Buffer.from('orphan-test-key-0123456789abcdef') });
const signal = new AbortController().signal;
await backend.acquire('orphan-a', signal);
await backend.acquire('orphan-b', signal);
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
setInterval(() => undefined, 60_000);
