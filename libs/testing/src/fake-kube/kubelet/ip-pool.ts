/** Options of the loopback address pool. */
export interface IpPoolOptions {
  /** First three octets with the trailing dot. Default `127.0.0.` (Linux routes all of 127/8 to `lo`). */
  prefix?: string;
  /** Lowest host number handed out. Default 2 (127.0.0.1 stays the host's). */
  first?: number;
  /** Highest host number handed out. Default 254. */
  last?: number;
}

/**
 * Hands out one loopback address per pod (`127.0.0.N`), so every agent can listen on the same fixed port.
 * Allocation is round-robin from a random start, which spreads parallel test processes over the range and
 * delays reuse of a just-released address (as pod IPs in a real cluster are eventually reused).
 */
export class LoopbackIpPool {
  private readonly prefix: string;
  private readonly first: number;
  private readonly last: number;
  private readonly used = new Set<number>();
  private cursor: number;

  constructor(options: IpPoolOptions = {}, random: () => number = Math.random) {
    this.prefix = options.prefix ?? '127.0.0.';
    this.first = options.first ?? 2;
    this.last = options.last ?? 254;
    if (this.first < 1 || this.last > 254 || this.first > this.last) throw new Error(`invalid address range ${this.first}..${this.last}`);
    this.cursor = this.first + Math.floor(random() * (this.last - this.first + 1));
  }

  /** Number of addresses currently allocated. */
  get size(): number {
    return this.used.size;
  }

  /** Allocates the next free address; `skip` lists addresses known to be busy. Throws when none is left. */
  allocate(skip: ReadonlySet<string> = new Set()): string {
    const span = this.last - this.first + 1;
    for (let i = 0; i < span; i++) {
      const host = this.first + ((this.cursor - this.first + i) % span);
      const address = `${this.prefix}${host}`;
      if (this.used.has(host) || skip.has(address)) continue;
      this.used.add(host);
      this.cursor = host + 1 > this.last ? this.first : host + 1;
      return address;
    }
    throw new Error(`no free loopback address in ${this.prefix}${this.first}-${this.last}`);
  }

  /** Returns an address to the pool (unknown addresses are ignored). */
  release(address: string): void {
    if (!address.startsWith(this.prefix)) return;
    this.used.delete(Number(address.slice(this.prefix.length)));
  }
}

/**
 * A /24 of 127/8 for one simulated cluster, `127.A.B.` with A in 1…254 (127.0.x stays the host's). Agents listen on
 * one fixed port, so two clusters in parallel processes that shared 127.0.0.N raced between the free-port check and
 * the agent's bind: a client reached the other process's agent (401, issue 19). Disjoint ranges have no such race.
 */
export function randomLoopbackPrefix(random: () => number = Math.random): string {
  return `127.${1 + Math.floor(random() * 254)}.${Math.floor(random() * 256)}.`;
}
