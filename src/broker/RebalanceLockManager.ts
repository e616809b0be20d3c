// RebalanceLockManager (spec §8.5, §15.6; B/client/rebalance/RebalanceLockManager.java): which client id
// holds each (group, queue) for orderly consumption. A lock lives REBALANCE_LOCK_MAX_LIVE_TIME (60 s)
// after its last refresh; asking again as its holder refreshes it, an expired lock goes to whoever asks.
// Locks are keyed by client id, not by connection: two instances sharing an id share their locks.
// The table is in memory only: a broker restart forgets every lock.
import { offsetKey } from "./ConsumerOffsetManager.ts";

/** rocketmq.broker.rebalance.lockMaxLiveTime, µs (§0.5). */
export const BROKER_LOCK_MAX_LIVE_US = 60_000_000;

interface LockEntry {
  clientId: string;
  lastUpdateUs: number;
}

export class RebalanceLockManager {
  /** (group, mq) → entry; group → number of entries (for isLockAllExpired). */
  private readonly table = new Map<number, LockEntry>();
  private readonly perGroup = new Map<number, Set<number>>();

  constructor(private readonly maxLiveUs = BROKER_LOCK_MAX_LIVE_US) {}

  private expired(e: LockEntry, nowUs: number): boolean {
    return nowUs - e.lastUpdateUs > this.maxLiveUs;
  }

  /**
   * tryLockBatch: the queues of `mqs` now locked by `clientId` (held already, refreshed; free; or taken
   * over from an expired holder), in the order asked. Queues an unexpired other client holds are left out.
   */
  tryLockBatch(group: number, mqs: readonly number[], clientId: string, nowUs: number): number[] {
    const locked: number[] = [];
    for (const mq of mqs) {
      const key = offsetKey(group, mq);
      const e = this.table.get(key);
      if (e === undefined) {
        this.table.set(key, { clientId, lastUpdateUs: nowUs });
        let keys = this.perGroup.get(group);
        if (!keys) {
          keys = new Set();
          this.perGroup.set(group, keys);
        }
        keys.add(key);
        locked.push(mq);
      } else if (e.clientId === clientId || this.expired(e, nowUs)) {
        // isLocked by the same unexpired client refreshes; an expired entry changes hands (a warn log).
        e.clientId = clientId;
        e.lastUpdateUs = nowUs;
        locked.push(mq);
      }
    }
    return locked;
  }

  /** unlockBatch: removes the entries `clientId` holds among `mqs`; others' entries stay. */
  unlockBatch(group: number, mqs: readonly number[], clientId: string): void {
    for (const mq of mqs) {
      const key = offsetKey(group, mq);
      const e = this.table.get(key);
      if (e !== undefined && e.clientId === clientId) {
        this.table.delete(key);
        this.perGroup.get(group)?.delete(key);
      }
    }
  }

  /** isLockAllExpired: true when the group holds no unexpired lock here (an unknown group included). */
  isLockAllExpired(group: number, nowUs: number): boolean {
    const keys = this.perGroup.get(group);
    if (!keys) return true;
    for (const k of keys) if (!this.expired(this.table.get(k)!, nowUs)) return false;
    return true;
  }

  /** The holder of (group, mq) and whether its lock has expired; null if none (for reports and tests). */
  holder(group: number, mq: number, nowUs: number): { clientId: string; expired: boolean } | null {
    const e = this.table.get(offsetKey(group, mq));
    return e === undefined ? null : { clientId: e.clientId, expired: this.expired(e, nowUs) };
  }

  /** A restarted broker starts with no locks. */
  clear(): void {
    this.table.clear();
    this.perGroup.clear();
  }
}
