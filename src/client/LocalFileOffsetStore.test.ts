// LocalFileOffsetStore, a BROADCASTING instance's offsets (spec §12.2; acceptance cases of
// LocalFileOffsetStoreTest, §15.4). In memory it is the remote store (§12.1: update, freeze, remove);
// persisting writes into the instance's offsets.json — here the LocalOffsetFile map the test hands in and
// reads back — and never to a broker. Queues are global queue indexes.
import { afterEach, describe, expect, it, vi } from "vitest";
import { LocalFileOffsetStore, type LocalOffsetFile } from "./LocalFileOffsetStore.ts";
import { RemoteBrokerOffsetStore } from "./RemoteBrokerOffsetStore.ts";

const MQ0 = 0;
const MQ1 = 1;
const MQ2 = 2;

/** A fresh instance over an empty file (a host that never ran this instance). */
function fresh(): { store: LocalFileOffsetStore; file: LocalOffsetFile } {
  const file: LocalOffsetFile = new Map();
  return { store: new LocalFileOffsetStore(file), file };
}

/** The file's entries, sorted by queue. */
function contents(file: LocalOffsetFile): [number, number][] {
  return [...file.entries()].sort((a, b) => a[0] - b[0]);
}

describe("LocalFileOffsetStore acceptance cases of LocalFileOffsetStoreTest (spec §15.4)", () => {
  it("update(1024,false) → 1024; update(1023,false) → 1023; update(1022,true) → 1023", () => {
    const { store } = fresh();
    store.updateOffset(MQ1, 1024, false);
    expect(store.readOffset(MQ1)).toBe(1024);
    store.updateOffset(MQ1, 1023, false); // not increase-only: may go down
    expect(store.readOffset(MQ1)).toBe(1023);
    store.updateOffset(MQ1, 1022, true); // increase-only: max(1023, 1022)
    expect(store.readOffset(MQ1)).toBe(1023);
  });

  it("READ_FROM_STORE is −1 before persistAll and 1024 after it", () => {
    const { store } = fresh();
    store.updateOffset(MQ2, 1024, false);
    expect(store.readFromStore(MQ2)).toBe(-1); // in memory only, the file has no entry yet
    store.persistAll(new Set([MQ2]));
    expect(store.readFromStore(MQ2)).toBe(1024);
  });

  it("persist(mq0 = 1024) writes that entry; mq1, never persisted, reads −1 from the store", () => {
    const { store, file } = fresh();
    store.updateOffset(MQ0, 1024, false);
    store.persist(MQ0);
    expect(store.readFromStore(MQ0)).toBe(1024);
    expect(store.readFromStore(MQ1)).toBe(-1);
    expect(contents(file)).toEqual([[MQ0, 1024]]);
  });

  it("persistAll of {mq1 = 1025, mq2 = 1026} keeps mq0 = 1024, written before, in the file", () => {
    const { store, file } = fresh();
    store.updateOffset(MQ0, 1024, false);
    store.persistAll(new Set([MQ0]));
    expect(store.readFromStore(MQ0)).toBe(1024);
    store.updateOffset(MQ1, 1025, false);
    store.updateOffset(MQ2, 1026, false);
    store.persistAll(new Set([MQ1, MQ2]));
    expect([MQ0, MQ1, MQ2].map((mq) => store.readFromStore(mq))).toEqual([1024, 1025, 1026]);
    expect(contents(file)).toEqual([[MQ0, 1024], [MQ1, 1025], [MQ2, 1026]]);
  });

  it("removeOffset → −1 in memory, but the file keeps the entry", () => {
    const { store, file } = fresh();
    store.updateOffset(MQ0, 1024, false);
    store.persist(MQ0);
    store.removeOffset(MQ0);
    expect(store.readOffset(MQ0)).toBe(-1);
    expect(contents(file)).toEqual([[MQ0, 1024]]);
    expect(store.readFromStore(MQ0)).toBe(1024); // and reading the store brings it back into memory
    expect(store.readOffset(MQ0)).toBe(1024);
  });
});

describe("load(): the constructor reads the file into memory (§12.2)", () => {
  it("a restarted instance on the same host starts from the offsets its predecessor persisted", () => {
    const { store: before, file } = fresh();
    before.updateOffset(MQ2, 30, false);
    before.updateOffset(MQ0, 10, false);
    before.updateOffset(MQ1, 20, false);
    before.persistAll(new Set([MQ0, MQ2])); // MQ1 never reaches the file
    const after = new LocalFileOffsetStore(file);
    expect([MQ0, MQ1, MQ2].map((mq) => after.readOffset(mq))).toEqual([10, -1, 30]);
    expect(after.entries()).toEqual([[MQ0, 10], [MQ2, 30]]);
  });

  it("a lost host (a new, empty file) starts with nothing in memory", () => {
    const { store } = fresh();
    expect(store.entries()).toEqual([]);
    expect(store.readOffset(MQ0)).toBe(-1);
  });

  it("loading does not change the file, and a loaded entry is not frozen", () => {
    const file: LocalOffsetFile = new Map([[MQ1, 500]]);
    const store = new LocalFileOffsetStore(file);
    expect(contents(file)).toEqual([[MQ1, 500]]);
    store.updateOffset(MQ1, 400, false);
    expect(store.readOffset(MQ1)).toBe(400);
  });
});

describe("readFromStore (READ_FROM_STORE, §12.2)", () => {
  it("updates memory with the file's value, not increase-only: memory 2000, file 1000 → 1000", () => {
    const file: LocalOffsetFile = new Map();
    const store = new LocalFileOffsetStore(file);
    store.updateOffset(MQ0, 1000, false);
    store.persist(MQ0);
    store.updateOffset(MQ0, 2000, false); // memory ahead of the file
    expect(store.readFromStore(MQ0)).toBe(1000);
    expect(store.readOffset(MQ0)).toBe(1000);
  });

  it("with no entry in the file: −1, and memory is left as it was", () => {
    const { store } = fresh();
    store.updateOffset(MQ0, 77, false);
    expect(store.readFromStore(MQ0)).toBe(-1);
    expect(store.readOffset(MQ0)).toBe(77);
  });

  it("a frozen entry: returns the file's value but memory keeps the frozen one (updateOffset is ignored, §12.1)", () => {
    const file: LocalOffsetFile = new Map([[MQ0, 1000]]);
    const store = new LocalFileOffsetStore(file);
    store.updateAndFreezeOffset(MQ0, 300);
    expect(store.readFromStore(MQ0)).toBe(1000);
    expect(store.readOffset(MQ0)).toBe(300);
  });
});

describe("persistAll(mqs) (§12.2, unlike RemoteBrokerOffsetStore §12.1)", () => {
  it("with an empty set does nothing: the file stays as it was", () => {
    const file: LocalOffsetFile = new Map([[MQ2, 5]]);
    const store = new LocalFileOffsetStore(file);
    store.updateOffset(MQ0, 10, false);
    store.updateOffset(MQ2, 50, false);
    store.persistAll(new Set());
    expect(contents(file)).toEqual([[MQ2, 5]]);
    expect(store.entries()).toEqual([[MQ0, 10], [MQ2, 50]]);
  });

  it("does not forget memory entries of queues outside the set (the remote store would), nor write them", () => {
    const { store, file } = fresh();
    store.updateOffset(MQ0, 10, false);
    store.updateOffset(MQ1, 20, false);
    store.updateOffset(MQ2, 30, false);
    store.persistAll(new Set([MQ1]));
    expect(contents(file)).toEqual([[MQ1, 20]]);
    expect(store.entries()).toEqual([[MQ0, 10], [MQ1, 20], [MQ2, 30]]);
  });

  it("writes nothing for a queue in the set with no memory entry, and keeps its old file entry", () => {
    const file: LocalOffsetFile = new Map([[MQ1, 99]]);
    const store = new LocalFileOffsetStore(file);
    store.removeOffset(MQ1); // memory forgets the loaded 99
    store.persistAll(new Set([MQ1, MQ2]));
    expect(contents(file)).toEqual([[MQ1, 99]]);
  });

  it("overwrites a file entry with a smaller in-memory value (an orderly or reset offset going back)", () => {
    const file: LocalOffsetFile = new Map([[MQ0, 1000]]);
    const store = new LocalFileOffsetStore(file);
    store.updateOffset(MQ0, 400, false);
    store.persistAll(new Set([MQ0]));
    expect(contents(file)).toEqual([[MQ0, 400]]);
  });
});

describe("persist(mq) (§12.2)", () => {
  it("writes that one entry and leaves the other memory entries out of the file", () => {
    const { store, file } = fresh();
    store.updateOffset(MQ0, 10, false);
    store.updateOffset(MQ1, 20, false);
    store.persist(MQ1);
    expect(contents(file)).toEqual([[MQ1, 20]]);
  });

  it("does nothing for a queue without a memory entry: an earlier file entry stays", () => {
    const { store, file } = fresh();
    store.updateOffset(MQ0, 10, false);
    store.persist(MQ0);
    store.removeOffset(MQ0);
    store.persist(MQ0);
    store.persist(MQ2);
    expect(contents(file)).toEqual([[MQ0, 10]]);
  });
});

describe("freeze semantics, inherited from the remote store (§12.1, ControllableOffset)", () => {
  it("after updateAndFreezeOffset, updates are ignored (the frozen value is what gets persisted) until removeOffset", () => {
    const { store, file } = fresh();
    store.updateOffset(MQ0, 900, false);
    store.updateAndFreezeOffset(MQ0, 100);
    store.updateOffset(MQ0, 200, false);
    store.updateOffset(MQ0, 300, true);
    expect(store.readOffset(MQ0)).toBe(100);
    store.persistAll(new Set([MQ0]));
    expect(contents(file)).toEqual([[MQ0, 100]]);
    store.removeOffset(MQ0);
    store.updateOffset(MQ0, 250, false);
    store.updateOffset(MQ0, 240, false);
    expect(store.readOffset(MQ0)).toBe(240);
  });
});

describe("no broker traffic (§12.2: the offsets live on the consumer's host)", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("persisting never goes through the remote store's committing persist / persistAll", () => {
    // The store builds its own committer, so the test cannot hand it one; what it can see is that the
    // only code paths that call a committer, RemoteBrokerOffsetStore's persist and persistAll, are not run.
    const remotePersist = vi.spyOn(RemoteBrokerOffsetStore.prototype, "persist");
    const remotePersistAll = vi.spyOn(RemoteBrokerOffsetStore.prototype, "persistAll");
    const { store, file } = fresh();
    store.updateOffset(MQ0, 10, false);
    store.updateOffset(MQ1, 20, false);
    store.persist(MQ0);
    store.persistAll(new Set([MQ0, MQ1]));
    store.readFromStore(MQ1);
    store.removeOffset(MQ0);
    expect(remotePersist).not.toHaveBeenCalled();
    expect(remotePersistAll).not.toHaveBeenCalled();
    expect(contents(file)).toEqual([[MQ0, 10], [MQ1, 20]]);
  });
});
