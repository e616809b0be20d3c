// A free list of records of one class, so the busiest messages are reused instead of allocated per
// round trip. Taking from an empty pool makes a new record; nothing is ever lost by not returning one
// (the garbage collector takes it), so a forgotten release costs an allocation, never correctness.
import type { Command } from "./commands.ts";

export class Pool<T extends Command> {
  private readonly free: T[] = [];

  constructor(private readonly make: () => T) {}

  /** A record whose fields the caller must set; it returns here when released. */
  take(): T {
    const r = this.free.pop();
    if (r !== undefined) {
      r.stamp.pooled = false;
      return r;
    }
    const fresh = this.make();
    fresh.stamp.pool = this as unknown as Pool<Command>;
    return fresh;
  }

  put(record: T): void {
    // A record released twice would later be handed to two senders at once.
    const stamp = record.stamp;
    if (stamp.pooled) throw new Error(`Pool: record with code ${record.code} released twice`);
    stamp.pooled = true;
    this.free.push(record);
  }

  /** Records waiting to be reused. */
  get size(): number {
    return this.free.length;
  }
}
