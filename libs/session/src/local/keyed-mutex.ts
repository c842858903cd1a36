/** Serialises async work per key (acquire, release and reaping of one session never interleave). */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(work, work);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}

/** A set that forgets its oldest members beyond `limit` (bounded memory for "sessions that lost a sandbox"). */
export class BoundedSet {
  private readonly members = new Set<string>();

  constructor(private readonly limit: number) {}

  add(value: string): void {
    this.members.delete(value);
    this.members.add(value);
    if (this.members.size > this.limit) this.members.delete(this.members.values().next().value as string);
  }

  has(value: string): boolean {
    return this.members.has(value);
  }

  delete(value: string): void {
    this.members.delete(value);
  }
}
