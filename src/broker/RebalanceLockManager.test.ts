// RebalanceLockManager, the broker's orderly queue locks (spec rocketmq-consumer.md §8.5, §0.5, and the
// acceptance cases of RebalanceLockManagerTest, §15.6). A lock entry belongs to a client id and lives
// 60 000 ms after its last refresh; "expired" is strictly now − lastUpdate > 60 s. The manager is pure
// (the clock is an argument), so these tests call it directly; the broker's LOCK_BATCH_MQ /
// UNLOCK_BATCH_MQ handling over the wire is in Broker.orderly.test.ts.
import { describe, expect, it } from "vitest";
import { BROKER_LOCK_MAX_LIVE_US, RebalanceLockManager } from "./RebalanceLockManager.ts";

const S = 1_000_000;
/** rocketmq.broker.rebalance.lockMaxLiveTime = 60 000 ms (§0.5), written out so a changed constant fails. */
const LIVE_US = 60 * S;
const G = 0;
const H = 1;
const MQ0 = 0;
const MQ1 = 1;
const MQ2 = 2;
const A = "10.0.0.1@A";
const B = "10.0.0.2@B";
const C = "10.0.0.3@C";

describe("RebalanceLockManagerTest acceptance cases (spec §15.6)", () => {
  it("isLockAllExpired: a group the broker never saw has all its locks expired", () => {
    const locks = new RebalanceLockManager();
    expect(locks.isLockAllExpired(G, 0)).toBe(true);
    locks.tryLockBatch(G, [MQ0], A, 0);
    expect(locks.isLockAllExpired(H, 0)).toBe(true); // another group's lock says nothing about H
  });

  it("tryLock on a free queue succeeds and records the asker as holder", () => {
    const locks = new RebalanceLockManager();
    expect(locks.tryLockBatch(G, [MQ0], A, 5 * S)).toEqual([MQ0]);
    expect(locks.holder(G, MQ0, 5 * S)).toEqual({ clientId: A, expired: false });
  });

  it("tryLock on a queue the same client holds succeeds again", () => {
    const locks = new RebalanceLockManager();
    locks.tryLockBatch(G, [MQ0], A, 0);
    expect(locks.tryLockBatch(G, [MQ0], A, 10 * S)).toEqual([MQ0]);
    expect(locks.holder(G, MQ0, 10 * S)).toEqual({ clientId: A, expired: false });
  });

  it("tryLock on a queue another client holds, unexpired, fails and leaves the holder alone", () => {
    const locks = new RebalanceLockManager();
    locks.tryLockBatch(G, [MQ0], A, 0);
    expect(locks.tryLockBatch(G, [MQ0], B, 10 * S)).toEqual([]);
    expect(locks.holder(G, MQ0, 10 * S)).toEqual({ clientId: A, expired: false });
  });

  it("tryLock on a queue whose other holder expired succeeds: the lock changes hands", () => {
    const locks = new RebalanceLockManager();
    locks.tryLockBatch(G, [MQ0], A, 0);
    const t = LIVE_US + 1; // 60 s + 1 µs since A's only lock
    expect(locks.tryLockBatch(G, [MQ0], B, t)).toEqual([MQ0]);
    expect(locks.holder(G, MQ0, t)).toEqual({ clientId: B, expired: false });
  });

  it("tryLockBatch of 2 free queues locks both", () => {
    const locks = new RebalanceLockManager();
    expect(locks.tryLockBatch(G, [MQ0, MQ1], A, 0)).toEqual([MQ0, MQ1]);
    expect([MQ0, MQ1].map((mq) => locks.holder(G, mq, 0)?.clientId)).toEqual([A, A]);
  });

  it("tryLockBatch of 2 queues held by another client locks none", () => {
    const locks = new RebalanceLockManager();
    locks.tryLockBatch(G, [MQ0, MQ1], A, 0);
    expect(locks.tryLockBatch(G, [MQ0, MQ1], B, S)).toEqual([]);
    expect([MQ0, MQ1].map((mq) => locks.holder(G, mq, S)?.clientId)).toEqual([A, A]);
  });

  it("tryLockBatch of 2 queues, one held by another client, locks only the other one", () => {
    const locks = new RebalanceLockManager();
    locks.tryLockBatch(G, [MQ0], A, 0);
    expect(locks.tryLockBatch(G, [MQ0, MQ1], B, S)).toEqual([MQ1]);
    expect([MQ0, MQ1].map((mq) => locks.holder(G, mq, S)?.clientId)).toEqual([A, B]);
  });

  it("unlockBatch by the owner of 1 of 2 entries leaves 1 entry (the other client's)", () => {
    const locks = new RebalanceLockManager();
    locks.tryLockBatch(G, [MQ0], A, 0);
    locks.tryLockBatch(G, [MQ1], B, 0);
    locks.unlockBatch(G, [MQ0, MQ1], A);
    expect(locks.holder(G, MQ0, 0)).toBeNull();
    expect(locks.holder(G, MQ1, 0)).toEqual({ clientId: B, expired: false });
  });

  it("unlockBatch by a non-owner leaves both entries", () => {
    const locks = new RebalanceLockManager();
    locks.tryLockBatch(G, [MQ0, MQ1], A, 0);
    locks.unlockBatch(G, [MQ0, MQ1], C);
    expect([MQ0, MQ1].map((mq) => locks.holder(G, mq, 0))).toEqual([
      { clientId: A, expired: false },
      { clientId: A, expired: false },
    ]);
    expect(locks.tryLockBatch(G, [MQ0, MQ1], C, S)).toEqual([]); // still A's
  });
});

describe("lock expiry: 60 s after the last refresh, strictly (§8.5, §0.5)", () => {
  it("the default lifetime is rocketmq.broker.rebalance.lockMaxLiveTime, 60 000 ms", () => {
    expect(BROKER_LOCK_MAX_LIVE_US).toBe(LIVE_US);
  });

  it("exactly 60 s after the lock it is still held; 60 s + 1 µs after it is expired and stealable", () => {
    const locks = new RebalanceLockManager();
    const t0 = 7 * S;
    locks.tryLockBatch(G, [MQ0], A, t0);
    // now − lastUpdate = 60 s, not > 60 s: held.
    expect(locks.holder(G, MQ0, t0 + LIVE_US)).toEqual({ clientId: A, expired: false });
    expect(locks.isLockAllExpired(G, t0 + LIVE_US)).toBe(false);
    expect(locks.tryLockBatch(G, [MQ0], B, t0 + LIVE_US)).toEqual([]);
    // now − lastUpdate = 60 s + 1 µs: expired.
    expect(locks.holder(G, MQ0, t0 + LIVE_US + 1)).toEqual({ clientId: A, expired: true });
    expect(locks.isLockAllExpired(G, t0 + LIVE_US + 1)).toBe(true);
    expect(locks.tryLockBatch(G, [MQ0], B, t0 + LIVE_US + 1)).toEqual([MQ0]);
    expect(locks.holder(G, MQ0, t0 + LIVE_US + 1)?.clientId).toBe(B);
  });

  it("a refresh by the holder restarts the 60 s: locked at 0, refreshed at 50 s, it lasts until 110 s", () => {
    const locks = new RebalanceLockManager();
    locks.tryLockBatch(G, [MQ0], A, 0);
    locks.tryLockBatch(G, [MQ0], A, 50 * S);
    // Without the refresh, 60 s + 1 µs would be past the end; with it only 10 s + 1 µs have passed.
    expect(locks.tryLockBatch(G, [MQ0], B, LIVE_US + 1)).toEqual([]);
    expect(locks.tryLockBatch(G, [MQ0], B, 50 * S + LIVE_US)).toEqual([]); // exactly 60 s after the refresh
    expect(locks.tryLockBatch(G, [MQ0], B, 50 * S + LIVE_US + 1)).toEqual([MQ0]);
  });

  it("a failed attempt by another client does not refresh the holder's lock", () => {
    const locks = new RebalanceLockManager();
    locks.tryLockBatch(G, [MQ0], A, 0);
    expect(locks.tryLockBatch(G, [MQ0], B, 30 * S)).toEqual([]);
    // Had B's attempt refreshed the entry, it would be held until 90 s; it expires 60 s after A's lock.
    expect(locks.tryLockBatch(G, [MQ0], C, LIVE_US + 1)).toEqual([MQ0]);
  });

  it("a stolen lock lives 60 s from the steal: the old holder gets it back only after that", () => {
    const locks = new RebalanceLockManager();
    locks.tryLockBatch(G, [MQ0], A, 0);
    const stolenUs = LIVE_US + 1;
    locks.tryLockBatch(G, [MQ0], B, stolenUs);
    expect(locks.tryLockBatch(G, [MQ0], A, stolenUs + LIVE_US)).toEqual([]);
    expect(locks.tryLockBatch(G, [MQ0], A, stolenUs + LIVE_US + 1)).toEqual([MQ0]);
  });

  it("the holder asking again after its own lock expired gets it, fresh for another 60 s", () => {
    const locks = new RebalanceLockManager();
    locks.tryLockBatch(G, [MQ0], A, 0);
    const againUs = 100 * S; // 40 s past expiry, nobody took it
    expect(locks.holder(G, MQ0, againUs)).toEqual({ clientId: A, expired: true });
    expect(locks.tryLockBatch(G, [MQ0], A, againUs)).toEqual([MQ0]);
    expect(locks.holder(G, MQ0, againUs + LIVE_US)).toEqual({ clientId: A, expired: false });
    expect(locks.tryLockBatch(G, [MQ0], B, againUs + LIVE_US)).toEqual([]);
  });

  it("a batch refreshes only the entries it locks: the queue another client holds keeps its own clock", () => {
    const locks = new RebalanceLockManager();
    locks.tryLockBatch(G, [MQ0], A, 0);
    locks.tryLockBatch(G, [MQ1], B, 0);
    locks.tryLockBatch(G, [MQ0, MQ1], A, 30 * S); // refreshes MQ0 only
    expect(locks.holder(G, MQ0, LIVE_US + 1)).toEqual({ clientId: A, expired: false });
    expect(locks.holder(G, MQ1, LIVE_US + 1)).toEqual({ clientId: B, expired: true });
  });

  it("the lifetime given to the constructor replaces the 60 s", () => {
    const locks = new RebalanceLockManager(1000);
    locks.tryLockBatch(G, [MQ0], A, 0);
    expect(locks.tryLockBatch(G, [MQ0], B, 1000)).toEqual([]);
    expect(locks.tryLockBatch(G, [MQ0], B, 1001)).toEqual([MQ0]);
  });
});

describe("isLockAllExpired: per group (§8.4's 5.x DLQ rule asks it)", () => {
  it("false while the group holds an unexpired lock, true once it expired; other groups unaffected", () => {
    const locks = new RebalanceLockManager();
    locks.tryLockBatch(G, [MQ0], A, 0);
    expect(locks.isLockAllExpired(G, 0)).toBe(false);
    expect(locks.isLockAllExpired(H, 0)).toBe(true);
    expect(locks.isLockAllExpired(G, LIVE_US + 1)).toBe(true);
  });

  it("one unexpired entry among expired ones is enough to make it false", () => {
    const locks = new RebalanceLockManager();
    locks.tryLockBatch(G, [MQ0], A, 0);
    locks.tryLockBatch(G, [MQ1], B, 30 * S);
    // At 60 s + 1 µs: MQ0 expired (60 s + 1 µs old), MQ1 not (30 s + 1 µs old).
    expect(locks.isLockAllExpired(G, LIVE_US + 1)).toBe(false);
    // At 90 s + 1 µs both are older than 60 s.
    expect(locks.isLockAllExpired(G, 30 * S + LIVE_US + 1)).toBe(true);
  });

  it("true as soon as the group's last entry is unlocked, however young it was", () => {
    const locks = new RebalanceLockManager();
    locks.tryLockBatch(G, [MQ0, MQ1], A, 0);
    locks.unlockBatch(G, [MQ0], A);
    expect(locks.isLockAllExpired(G, S)).toBe(false);
    locks.unlockBatch(G, [MQ1], A);
    expect(locks.isLockAllExpired(G, S)).toBe(true);
  });

  it("the same queue in two groups is two locks: one group's holder does not block the other's", () => {
    const locks = new RebalanceLockManager();
    locks.tryLockBatch(G, [MQ2], A, 0);
    expect(locks.tryLockBatch(H, [MQ2], B, 0)).toEqual([MQ2]);
    locks.unlockBatch(H, [MQ2], B);
    expect(locks.holder(G, MQ2, 0)?.clientId).toBe(A);
    expect(locks.isLockAllExpired(G, 0)).toBe(false);
    expect(locks.isLockAllExpired(H, 0)).toBe(true);
  });
});

describe("locks are keyed by client id, not by connection (§8.5)", () => {
  it("whoever presents the holder's client id holds the lock: it can refresh and unlock it", () => {
    // The manager only ever sees the id; two instances started with the same id are one holder to it.
    const locks = new RebalanceLockManager();
    const sameId = ["10.0.0.1", "A"].join("@"); // built afresh, as a second instance would
    locks.tryLockBatch(G, [MQ0], A, 0);
    expect(locks.tryLockBatch(G, [MQ0], sameId, 40 * S)).toEqual([MQ0]);
    expect(locks.holder(G, MQ0, 40 * S + LIVE_US)).toEqual({ clientId: A, expired: false });
    locks.unlockBatch(G, [MQ0], sameId);
    expect(locks.holder(G, MQ0, 40 * S)).toBeNull();
  });
});

describe("clear(): a broker restart forgets every lock (§8.5, the table is in memory only)", () => {
  it("after clear no queue has a holder, every group reads all-expired, and another client locks at once", () => {
    const locks = new RebalanceLockManager();
    locks.tryLockBatch(G, [MQ0, MQ1], A, 0);
    locks.tryLockBatch(H, [MQ0], B, 0);
    locks.clear();
    expect([locks.holder(G, MQ0, S), locks.holder(G, MQ1, S), locks.holder(H, MQ0, S)]).toEqual([null, null, null]);
    expect(locks.isLockAllExpired(G, S)).toBe(true);
    expect(locks.isLockAllExpired(H, S)).toBe(true);
    expect(locks.tryLockBatch(G, [MQ0, MQ1], C, S)).toEqual([MQ0, MQ1]);
    expect(locks.isLockAllExpired(G, S)).toBe(false);
  });
});
