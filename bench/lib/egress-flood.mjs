// The hostile session of the egress bench (issue 20 item 6: "10,000 CONNECTs and slow headers must not starve other
// sessions"), in a process of its own so its CPU is not the victim's. It holds `slow` connections that send half a
// request head and never finish it (they fill the session's connection cap until the gateway's head deadline), and
// meanwhile makes `total` CONNECT attempts, `window` at a time, each reading the status line and closing. The parent
// forks this file and sends {port, total, slow, window}; it answers {statuses, elapsedMs} once every attempt ended.
import { fork } from 'node:child_process';
import { connect } from 'node:net';

/** Forks the flood against `port`; resolves with its outcome. */
export function runFlood(port, options) {
  const child = fork(new URL(import.meta.url), ['--child'], { stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    child.once('message', (outcome) => {
      child.kill();
      resolve(outcome);
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`flood exited with ${code} before reporting`)));
    child.send({ port, ...options });
  });
}

/** One CONNECT attempt: resolves with the gateway's status code, or the error code of the socket. */
function attempt(port, head, hold) {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let text = '';
    const finish = (outcome) => {
      socket.destroy();
      resolve(outcome);
    };
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (status) finish(status[1]);
    });
    socket.once('error', (error) => finish(error.code ?? 'error'));
    socket.once('close', () => finish(text === '' ? 'closed' : 'other'));
    socket.once('connect', () => socket.write(head));
    if (hold) hold.push(socket);
  });
}

async function flood({ port, total, slow, window }) {
  const started = Date.now();
  const statuses = {};
  const count = (outcome) => (statuses[outcome] = (statuses[outcome] ?? 0) + 1);
  const held = [];
  let ending = false;
  // Half a head each: the gateway waits for the rest until its head deadline (then 408), or refuses it at once (429)
  // beyond the session's cap. Those the flood closes itself at its end count as held, not as closed by the gateway.
  const slowHeads = Array.from({ length: slow }, () => attempt(port, 'CONNECT flood.test:443 HTTP/1.1\r\nHost: flo', held)
    .then((outcome) => count(ending && outcome === 'closed' ? 'half-head held to the end' : outcome)));
  let next = 0;
  const worker = async () => {
    while (next < total) {
      next += 1;
      count(await attempt(port, 'CONNECT flood.test:443 HTTP/1.1\r\nHost: flood.test:443\r\n\r\n'));
    }
  };
  await Promise.all(Array.from({ length: window }, worker));
  ending = true;
  for (const socket of held) socket.destroy();
  await Promise.all(slowHeads);
  return { statuses, elapsedMs: Date.now() - started };
}

if (process.argv.includes('--child')) {
  process.once('message', (options) => flood(options).then((outcome) => process.send(outcome)));
}
