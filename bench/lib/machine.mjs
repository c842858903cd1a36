// One line on the machine a benchmark ran on, printed before the tables: latencies of a few hand-overs between
// processes depend on it more than on the code. On a VM whose idle vCPUs halt at once (cpuidle `haltpoll` with
// `guest_halt_poll_ns` 0), every wake-up of a process on an idle vCPU costs ≈ 50 µs; with the KVM default of
// 200 µs of polling the same agent call measured 0.40 ms instead of 0.55–0.60 ms (docs/benchmarks.md, round 4).
import { readFileSync } from 'node:fs';
import { cpus, loadavg, release } from 'node:os';

function read(path) {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

export function describeMachine() {
  const idle = read('/sys/devices/system/cpu/cpuidle/current_driver');
  const governor = read('/sys/devices/system/cpu/cpuidle/current_governor_ro') ?? read('/sys/devices/system/cpu/cpuidle/current_governor');
  const pollNs = read('/sys/module/haltpoll/parameters/guest_halt_poll_ns');
  const parts = [
    `${cpus().length} CPUs`,
    `load ${loadavg().map((value) => value.toFixed(2)).join(' ')}`,
    `Linux ${release()}`,
    `Node ${process.versions.node}`,
    `cpuidle ${idle ?? 'unknown'}${governor && governor !== idle ? `/${governor}` : ''}`,
  ];
  if (pollNs !== undefined) parts.push(`guest_halt_poll_ns ${pollNs}${pollNs === '0' ? ' (idle vCPUs halt at once: each wake-up on one costs tens of µs)' : ''}`);
  return parts.join(', ');
}
