// A throwaway server stand-in for the orphan tests: creates sessions through LocalBackend, prints every pid of
// its process tree as one JSON line, then waits: SIGTERM shuts the backend down as the server does (C-HTTP-4);
// SIGKILL gives it no chance to clean up.
import { LocalBackend } from '../../../../libs/session/src/index.ts';

const [stateDir, isolation, agentEntry, network = 'auto'] = process.argv.slice(2);
const backend = new LocalBackend({ stateDir, isolation, network, agentEntry, hmacKey: Buffer.from('orphan-test-key-0123456789abcdef') });
const signal = new AbortController().signal;
await backend.acquire('orphan-a', signal);
await backend.acquire('orphan-b', signal);
process.once('SIGTERM', () => void backend.shutdown().then(() => process.exit(0)));
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
setInterval(() => undefined, 60_000);
