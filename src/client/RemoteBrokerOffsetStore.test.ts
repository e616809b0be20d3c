import { describe, expect, it } from "vitest";
import { type OffsetCommitter, RemoteBrokerOffsetStore } from "./RemoteBrokerOffsetStore.ts";

/** Records every oneway UPDATE_CONSUMER_OFFSET and, like the broker (§12.1), overwrites its own table. */
class RecordingCommitter implements OffsetCommitter {
  readonly sent: [queueIndex: number, offset: number][] = [];
  readonly broker = new Map<number, number>();
  commitOffset(queueIndex: number, offset: number): void {
    this.sent.push([queueIndex, offset]);
    this.broker.set(queueIndex, offset);
  }
}

const MQ = 3;

function storeWith(): { store: RemoteBrokerOffsetStore; committer: RecordingCommitter } {
  const committer = new RecordingCommitter();
  return { store: new RemoteBrokerOffsetStore(committer), committer };
}

describe("RemoteBrokerOffsetStore acceptance cases of RemoteBrokerOffsetStoreTest (spec §15.4)", () => {
  it("update(1024,false) → 1024; update(1023,false) → 1023; update(1022,true) → 1023", () => {
    const { store } = storeWith();
    store.updateOffset(MQ, 1024, false);
    expect(store.readOffset(MQ)).toBe(1024);
    store.updateOffset(MQ, 1023, false);
    expect(store.readOffset(MQ)).toBe(1023);
    store.updateOffset(MQ, 1022, true);
    expect(store.readOffset(MQ)).toBe(1023);
  });

  it("after a freeze at 1024, update(1023,false) and update(1022,true) leave 1024", () => {
    const { store } = storeWith();
    store.updateOffset(MQ, 1000, false);
    store.updateAndFreezeOffset(MQ, 1024);
    store.updateOffset(MQ, 1023, false);
    expect(store.readOffset(MQ)).toBe(1024);
    store.updateOffset(MQ, 1022, true);
    expect(store.readOffset(MQ)).toBe(1024);
    store.updateOffset(MQ, 5000, true);
    expect(store.readOffset(MQ)).toBe(1024);
  });

  it("removeOffset after a freeze reads −1 from memory, and the next update(1023,false) gives 1023", () => {
    const { store } = storeWith();
    store.updateAndFreezeOffset(MQ, 1024);
    store.removeOffset(MQ);
    expect(store.readOffset(MQ)).toBe(-1);
    store.updateOffset(MQ, 1023, false);
    expect(store.readOffset(MQ)).toBe(1023);
    store.updateOffset(MQ, 1000, false); // the freeze went with the entry
    expect(store.readOffset(MQ)).toBe(1000);
  });

  it("persist round-trip: 1024 → 1023 → (1022 increase-only) 1023 → persistAll after 1025 → broker holds 1025", () => {
    const { store, committer } = storeWith();
    store.updateOffset(MQ, 1024, false);
    store.persistAll(new Set([MQ]));
    expect(committer.broker.get(MQ)).toBe(1024);
    store.updateOffset(MQ, 1023, false);
    store.persistAll(new Set([MQ]));
    expect(committer.broker.get(MQ)).toBe(1023);
    store.updateOffset(MQ, 1022, true);
    store.persistAll(new Set([MQ]));
    expect(committer.broker.get(MQ)).toBe(1023);
    store.updateOffset(MQ, 1025, false);
    store.persistAll(new Set([MQ]));
    expect(committer.broker.get(MQ)).toBe(1025);
  });

  it("removeOffset → −1", () => {
    const { store } = storeWith();
    store.updateOffset(MQ, 1024, false);
    store.removeOffset(MQ);
    expect(store.readOffset(MQ)).toBe(-1);
  });
});

describe("ControllableOffset cases of ControllableOffsetTest (spec §15.4, initial value 0)", () => {
  function initialZero(): RemoteBrokerOffsetStore {
    const { store } = storeWith();
    store.updateOffset(MQ, 0, false);
    return store;
  }

  it("freeze(100) then update(200) → 100", () => {
    const store = initialZero();
    store.updateAndFreezeOffset(MQ, 100);
    store.updateOffset(MQ, 200, false);
    expect(store.readOffset(MQ)).toBe(100);
  });

  it("update(200) → 200", () => {
    const store = initialZero();
    store.updateOffset(MQ, 200, false);
    expect(store.readOffset(MQ)).toBe(200);
  });

  it("update(200) then update(100, increaseOnly) → 200", () => {
    const store = initialZero();
    store.updateOffset(MQ, 200, false);
    store.updateOffset(MQ, 100, true);
    expect(store.readOffset(MQ)).toBe(200);
  });

  it("update(100) then update(200, increaseOnly) → 200", () => {
    const store = initialZero();
    store.updateOffset(MQ, 100, false);
    store.updateOffset(MQ, 200, true);
    expect(store.readOffset(MQ)).toBe(200);
  });
});

describe("RemoteBrokerOffsetStore.updateOffset (spec §12.1)", () => {
  it("inserts the first value for an absent queue even with increaseOnly, whatever its size", () => {
    const { store } = storeWith();
    store.updateOffset(MQ, 7, true);
    expect(store.readOffset(MQ)).toBe(7);
    store.removeOffset(MQ);
    store.updateOffset(MQ, 0, true);
    expect(store.readOffset(MQ)).toBe(0);
  });

  it("overwrites with a smaller value when not increaseOnly (orderly commit, §8.4)", () => {
    const { store } = storeWith();
    store.updateOffset(MQ, 500, true);
    store.updateOffset(MQ, 20, false);
    expect(store.readOffset(MQ)).toBe(20);
  });

  it("keeps queues independent", () => {
    const { store } = storeWith();
    store.updateOffset(1, 10, false);
    store.updateOffset(2, 20, false);
    store.updateAndFreezeOffset(1, 11);
    store.updateOffset(2, 21, false);
    store.updateOffset(1, 99, false);
    expect(store.readOffset(1)).toBe(11);
    expect(store.readOffset(2)).toBe(21);
  });

  it("sends nothing to the broker", () => {
    const { store, committer } = storeWith();
    store.updateOffset(MQ, 10, false);
    store.updateAndFreezeOffset(MQ, 11);
    store.removeOffset(MQ);
    expect(committer.sent).toEqual([]);
  });
});

describe("RemoteBrokerOffsetStore.updateAndFreezeOffset (spec §12.1, §4.3 OFFSET_ILLEGAL)", () => {
  it("creates an absent entry at the given offset", () => {
    const { store } = storeWith();
    store.updateAndFreezeOffset(MQ, 42);
    expect(store.readOffset(MQ)).toBe(42);
  });

  it("sets the value even below the current one, then ignores increase-only and plain updates", () => {
    const { store } = storeWith();
    store.updateOffset(MQ, 900, false);
    store.updateAndFreezeOffset(MQ, 100);
    expect(store.readOffset(MQ)).toBe(100);
    store.updateOffset(MQ, 950, true);
    expect(store.readOffset(MQ)).toBe(100);
  });

  it("a second freeze replaces the frozen value", () => {
    const { store } = storeWith();
    store.updateAndFreezeOffset(MQ, 100);
    store.updateAndFreezeOffset(MQ, 60);
    expect(store.readOffset(MQ)).toBe(60);
  });
});

describe("RemoteBrokerOffsetStore.readOffset (READ_FROM_MEMORY, spec §12.1)", () => {
  it("returns −1 for a queue never updated", () => {
    const { store } = storeWith();
    expect(store.readOffset(99)).toBe(-1);
  });
});

describe("RemoteBrokerOffsetStore.persistAll (spec §12.1, §12.4)", () => {
  it("commits the entries of queues in the set in ascending queue order, whatever the insertion order", () => {
    const { store, committer } = storeWith();
    store.updateOffset(5, 50, false);
    store.updateOffset(1, 10, false);
    store.updateOffset(3, 30, false);
    store.persistAll(new Set([5, 3, 1]));
    expect(committer.sent).toEqual([[1, 10], [3, 30], [5, 50]]);
  });

  it("forgets entries of queues not in the set and commits nothing for them", () => {
    const { store, committer } = storeWith();
    store.updateOffset(1, 10, false);
    store.updateOffset(2, 20, false);
    store.updateOffset(3, 30, false);
    store.persistAll(new Set([2]));
    expect(committer.sent).toEqual([[2, 20]]);
    expect(store.readOffset(1)).toBe(-1);
    expect(store.readOffset(3)).toBe(-1);
    expect(store.entries()).toEqual([[2, 20]]);
  });

  it("commits nothing for queues in the set that have no entry", () => {
    const { store, committer } = storeWith();
    store.updateOffset(1, 10, false);
    store.persistAll(new Set([1, 7]));
    expect(committer.sent).toEqual([[1, 10]]);
    expect(store.readOffset(7)).toBe(-1);
  });

  it("does nothing at all for an empty set: no commit, no entry forgotten", () => {
    const { store, committer } = storeWith();
    store.updateOffset(1, 10, false);
    store.updateOffset(2, 20, false);
    store.persistAll(new Set());
    expect(committer.sent).toEqual([]);
    expect(store.entries()).toEqual([[1, 10], [2, 20]]);
  });

  it("commits a frozen value, and forgetting an entry also lifts its freeze", () => {
    const { store, committer } = storeWith();
    store.updateAndFreezeOffset(1, 10);
    store.updateAndFreezeOffset(2, 20);
    store.persistAll(new Set([1]));
    expect(committer.sent).toEqual([[1, 10]]);
    store.updateOffset(2, 5, false); // inserted afresh: the old freeze is gone
    store.updateOffset(2, 6, false);
    expect(store.readOffset(2)).toBe(6);
    store.updateOffset(1, 99, false); // still frozen
    expect(store.readOffset(1)).toBe(10);
  });

  it("commits an offset of 0 (only the pull piggy-back skips 0, §2.2)", () => {
    const { store, committer } = storeWith();
    store.updateOffset(1, 0, false);
    store.persistAll(new Set([1]));
    expect(committer.sent).toEqual([[1, 0]]);
  });
});

describe("RemoteBrokerOffsetStore.persist (spec §12.1, §10.5)", () => {
  it("commits that one entry and leaves the others alone", () => {
    const { store, committer } = storeWith();
    store.updateOffset(1, 10, false);
    store.updateOffset(2, 20, false);
    store.persist(2);
    expect(committer.sent).toEqual([[2, 20]]);
    expect(store.readOffset(1)).toBe(10);
  });

  it("sends nothing for an absent entry", () => {
    const { store, committer } = storeWith();
    store.persist(4);
    store.updateOffset(4, 1, false);
    store.removeOffset(4);
    store.persist(4);
    expect(committer.sent).toEqual([]);
  });

  it("sends the current value on every call (oneway, no de-duplication)", () => {
    const { store, committer } = storeWith();
    store.updateOffset(1, 10, false);
    store.persist(1);
    store.persist(1);
    expect(committer.sent).toEqual([[1, 10], [1, 10]]);
  });
});

describe("RemoteBrokerOffsetStore.entries", () => {
  it("lists every entry sorted by queue index", () => {
    const { store } = storeWith();
    store.updateOffset(9, 90, false);
    store.updateOffset(0, 0, false);
    store.updateOffset(4, 40, false);
    expect(store.entries()).toEqual([[0, 0], [4, 40], [9, 90]]);
  });
});
