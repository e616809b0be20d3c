// MessageStore: the commit-log tail and page cache, retention by age, deletion, the timestamp search,
// the start-at-0 rule (spec §10.6, §13.2, §13.7) and memory reclamation. The store is the fixture
// broker's (testBroker.ts), so deletions reach the recording observer and the captured trace; messages
// are appended straight into it, as Broker#putMessage and the retry path do.
import { describe, expect, it } from "vitest";
import { BROKER_CONSTANTS } from "../scenario/defaults.ts";
import { CHUNK } from "./QueueStore.ts";
import { BrokerFixture, S, type RigInput } from "./testBroker.ts";

const G = 0;

/** A fixture with `count` messages of 100 B on T's queue, the k-th (k = 1…count) born at k seconds. */
function filled(count: number, input: RigInput = {}) {
  const fx = new BrokerFixture(input);
  const mq = fx.queueOf(0);
  for (let k = 1; k <= count; k++) fx.broker.store.append(mq, k * S, 100, -1, -1, 0, 0);
  return { fx, store: fx.broker.store, mq, q: fx.store(mq) };
}

describe("MessageStore.append: the commit log and the page cache", () => {
  it("advances the commit-log tail by each message's stored size and records where each one ends", () => {
    const { store, q } = filled(3);
    const size = 100 + "T".length + BROKER_CONSTANTS.STORE_OVERHEAD_BYTES;
    expect(store.storedSize(100, "T")).toBe(size);
    expect(store.commitLogTail).toBe(3 * size);
    expect([q.clPos(0), q.clPos(1), q.clPos(2)]).toEqual([size, 2 * size, 3 * size]);
  });

  it("counts a message as hot while the tail is at most hotBytes past it", () => {
    const { store, q } = filled(10, { broker: { hotBytes: 1000 } });
    const size = store.storedSize(100, "T"); // 256 B: the last 4 messages (tail − clPos ≤ 768) are hot
    expect(size).toBe(256);
    expect(Array.from({ length: 10 }, (_, i) => store.isHot(q.clPos(i)))).toEqual([false, false, false, false, false, false, true, true, true, true]);
  });
});

describe("MessageStore.applyRetention: deletion by age (rocketmq-broker.md §2)", () => {
  it("deletes the messages born before now − retention, in order, and tells the observer and the trace", () => {
    const { fx, store, mq, q } = filled(10, { topic: { retention: "10s" } });
    store.applyRetention(mq, 13_500_000); // cutoff 3.5 s: messages born at 1, 2, 3 s
    expect(q.minOffset).toBe(3);
    expect(fx.observer.of("messagesDeleted")).toEqual([[mq, 0, 3]]);
    expect(fx.ctx.records("retention")).toMatchObject([{ tUs: 13_500_000, mq, minOffset: 3 }]);
  });

  it("keeps a message born exactly at the cutoff, and does nothing when nothing is old enough", () => {
    const { fx, store, mq, q } = filled(10, { topic: { retention: "10s" } });
    store.applyRetention(mq, 14 * S); // cutoff 4 s: the message born at 4 s stays
    expect(q.minOffset).toBe(3);
    store.applyRetention(mq, 14 * S);
    expect(fx.observer.of("messagesDeleted")).toEqual([[mq, 0, 3]]);
  });

  it("may delete everything (minOffset = maxOffset), and then nothing more", () => {
    const { fx, store, mq, q } = filled(10, { topic: { retention: "10s" } });
    store.applyRetention(mq, 100 * S);
    store.applyRetention(mq, 200 * S);
    expect([q.minOffset, q.maxOffset]).toEqual([10, 10]);
    expect(fx.observer.of("messagesDeleted")).toEqual([[mq, 0, 10]]);
  });

  it("keeps retry and DLQ messages whatever their age", () => {
    const { fx, store } = filled(0, { topic: { retention: "10s" } });
    for (const mq of [fx.retryQueue(G), fx.dlqQueue(G)]) {
      store.append(mq, 0, 100, -1, 7, 0, 1);
      store.applyRetention(mq, 1000 * S);
      expect(fx.store(mq).minOffset).toBe(0);
    }
    expect(fx.observer.of("messagesDeleted")).toEqual([]);
  });
});

describe("MessageStore.deleteUpTo", () => {
  it("moves minOffset up and tells the observer which messages are gone; never moves it down", () => {
    const { fx, store, mq, q } = filled(10);
    store.deleteUpTo(mq, 4, 5 * S);
    store.deleteUpTo(mq, 2, 6 * S);
    store.deleteUpTo(mq, 4, 7 * S);
    expect(q.minOffset).toBe(4);
    expect(fx.observer.of("messagesDeleted")).toEqual([[mq, 0, 4]]);
    expect(fx.ctx.records("retention")).toMatchObject([{ tUs: 5 * S, mq, minOffset: 4 }]);
  });
});

describe("MessageStore.searchOffset (§10.6 CONSUME_FROM_TIMESTAMP)", () => {
  it("answers the first offset born at or after the timestamp", () => {
    const { store, mq } = filled(10);
    expect(store.searchOffset(mq, 3 * S)).toBe(2);
    expect(store.searchOffset(mq, 3 * S + 1)).toBe(3);
  });

  it("answers minOffset for a timestamp older than every message, maxOffset for one newer", () => {
    const { store, mq } = filled(10);
    expect(store.searchOffset(mq, -1000 * S)).toBe(0);
    store.deleteUpTo(mq, 5, 0);
    expect(store.searchOffset(mq, -1000 * S)).toBe(5);
    expect(store.searchOffset(mq, 1000 * S)).toBe(10);
  });

  it("answers 0 on an empty queue", () => {
    const { store, mq } = filled(0);
    expect(store.searchOffset(mq, 0)).toBe(0);
  });
});

describe("MessageStore.startAtZero (§13.7: no stored offset, message 0 in memory)", () => {
  it("is true for a queue never truncated whose message 0 is hot", () => {
    const { store, mq } = filled(10);
    expect(store.startAtZero(mq)).toBe(true);
  });

  it("is false for an empty queue, a truncated one, and one whose message 0 is cold", () => {
    const empty = filled(0);
    expect(empty.store.startAtZero(empty.mq)).toBe(false);
    const truncated = filled(10);
    truncated.store.deleteUpTo(truncated.mq, 1, 0);
    expect(truncated.store.startAtZero(truncated.mq)).toBe(false);
    const cold = filled(10, { broker: { hotBytes: 1000 } });
    expect(cold.store.startAtZero(cold.mq)).toBe(false);
  });

  it("is still true after message 0's chunk was reclaimed while hot (reclaiming is invisible)", () => {
    const { store, mq } = filled(CHUNK + 1);
    store.reclaimBelow(mq, CHUNK);
    expect(store.startAtZero(mq)).toBe(true);
  });
});

describe("MessageStore.reclaimBelow: giving back memory, invisibly", () => {
  it("re-creates reclaimed messages exactly when read again (the fixture's messages are kept, not replayed)", () => {
    const { store, mq, q } = filled(2 * CHUNK + 10);
    const before = [q.bornUs(5), q.bodyBytes(5), q.pagePos(5), q.bornUs(CHUNK - 1), q.pagePos(CHUNK - 1)];
    store.reclaimBelow(mq, CHUNK + 5);
    expect(q.chunksHeld).toBe(2);
    expect([q.bornUs(5), q.bodyBytes(5), q.pagePos(5), q.bornUs(CHUNK - 1), q.pagePos(CHUNK - 1)]).toEqual(before);
    expect([q.minOffset, q.maxOffset]).toEqual([0, 2 * CHUNK + 10]);
    expect(store.searchOffset(mq, 6 * S)).toBe(5);
  });

  it("refuses a retry or DLQ queue (its copies carry origins that cannot be derived)", () => {
    const fx = new BrokerFixture();
    const rq = fx.retryQueue(G);
    expect(() => fx.broker.store.reclaimBelow(rq, 0)).toThrow(/retry copies/);
  });
});

describe("MessageStore commit-log files and the clean-up (rocketmq-broker.md §1.1, §2)", () => {
  // Messages of 100 B on topic "T" take 256 B in the commit log (100 + 1 + 155 overhead). With files of
  // 2 560 B a message needs 256 + 8 (end-of-file blank) free bytes, so a file holds 9 messages (9 × 256 =
  // 2 304; a tenth would need 2 304 + 264 > 2 560) and the k-th file starts at offset 9·k.
  const FILE = 2560;
  const store = { mappedFileSizeCommitLog: FILE, fileReservedTimeUs: 10 * S };
  function files(count: number, extra: RigInput = {}) {
    return filled(count, { store, ...extra });
  }

  it("rolls to a new file when a message and the end blank do not fit, jumping the physical offset", () => {
    const { store: st, q } = files(10);
    expect(st.files.map((f) => [f.startPos, f.writePos])).toEqual([[0, 9 * 256], [FILE, 256]]);
    expect(q.clPos(8)).toBe(9 * 256);
    expect(q.clPos(9)).toBe(FILE + 256);
    expect(st.commitLogTail).toBe(FILE + 256);
    expect(Array.from(st.files[1]!.firstOffsets)).toContain(9);
  });

  it("deletes in the deleteWhen hour only files older than fileReservedTime, never the newest", () => {
    // 30 messages born at 1..30 s: files 0-2 hold offsets 0-8, 9-17, 18-26 (last append at 9, 18, 27 s), file 3 holds 27-29.
    const { fx, store: st, mq, q } = files(30, { store: { ...store, startTimeUs: 4 * 3600 * S - 40 * S } });
    // At 35 s the local time is 03:59:55: not the deleteWhen hour, nothing goes.
    expect(st.cleanCommitLog(35 * S)).toBe(0);
    // At 40 s it is 04:00:00; files whose last append is ≥ 10 s old (9 s, 18 s, 27 s → all three) go.
    expect(st.cleanCommitLog(40 * S)).toBe(3);
    expect(q.minOffset).toBe(27);
    expect(fx.observer.of("messagesDeleted")).toEqual([[mq, 0, 27]]);
    expect(fx.observer.of("commitLogDeleted")).toEqual([[0, 3, 0, 40 * S]]);
    expect(fx.ctx.records("commitLogDeleted")).toMatchObject([{ files: 3, minPhyOffset: 3 * FILE, reason: 0 }]);
    // The newest file stays however old it gets.
    expect(st.cleanCommitLog(1000 * S + 40 * S)).toBe(0);
  });

  it("stops at the first file that must stay, and deletes at most deleteFileBatchMax per run", () => {
    const { store: st, q } = files(30, { store: { ...store, deleteFileBatchMax: 2, deleteWhenHours: [0] } });
    // Local hour 0 all along. At 28 s: file 0 (9 s) and 1 (18 s) are ≥ 10 s old, file 2 (27 s) is not.
    expect(st.cleanCommitLog(28 * S)).toBe(2);
    expect(q.minOffset).toBe(18);
    expect(st.cleanCommitLog(36 * S)).toBe(0); // file 2: 9 s old
    expect(st.cleanCommitLog(37 * S)).toBe(1);
    expect(q.minOffset).toBe(27);
  });

  it("under disk pressure: above 75 % expired files go at any hour, above 85 % any file, above 90 % writes are refused", () => {
    // deleteWhen never comes (hour 5, clock at 00:00). 30 messages = 3 full files of 2 304 B + 768 B.
    const disk = (diskBytes: number) => files(30, { store: { ...store, deleteWhenHours: [5], diskBytes } });
    const used = 3 * 2304 + 3 * 256; // 7 680 B written
    // 76 %: ⌈7 680·100 / 10 100⌉ = 77 % > 75 % → expired files (last append ≥ 10 s ago at 28 s: files 0, 1) go.
    const a = disk(10_100);
    expect(a.store.diskUsedBytes).toBe(used);
    expect(a.store.diskRatio()).toBe(0.77);
    expect(a.store.cleanCommitLog(28 * S)).toBe(2);
    expect(a.store.diskFull).toBe(false);
    // 86 %: ⌈7 680·100 / 8 930⌉ = 87 % → cleanImmediately: every file but the newest, whatever its age.
    const b = disk(8930);
    expect(b.store.cleanCommitLog(28 * S)).toBe(3);
    expect(b.store.diskFull).toBe(false);
    expect(b.fx.observer.of("commitLogDeleted")[0]![2]).toBe(2);
    // 91 %: DISK_FULL: producers are refused (pulls go on), until usage is ≤ 85 % at a later run.
    const c = disk(8440);
    expect(c.store.diskRatio()).toBe(0.91);
    c.store.cleanCommitLog(0);
    expect(c.store.diskFull).toBe(true);
    expect(c.fx.broker.acceptsWrites()).toBe(false);
    c.store.cleanCommitLog(1 * S); // the newest file alone: 768 B → 10 %
    expect(c.store.diskFull).toBe(false);
    expect(c.fx.broker.acceptsWrites()).toBe(true);
  });

  it("runs first 60 s after start, then every cleanResourceInterval, and not while the broker is down", () => {
    const { fx, store: st } = files(30, { store: { ...store, deleteWhenHours: [0] } });
    fx.runUntil(59 * S);
    expect(st.filesDeleted).toBe(0);
    fx.runUntil(60 * S);
    expect(st.filesDeleted).toBe(3);
  });
});

describe("MessageStore.loseTail: a crash loses the commit-log tail (brokerCrash lose)", () => {
  const remember = { store: { tailHistoryUs: 1000 * S } };
  it("forgets every message stored at or after the time, on every queue, rolls the tail back, and reuses the offsets", () => {
    // 10 messages born (stored) at 1..10 s, 256 B each in the commit log.
    const { fx, store, mq, q } = filled(10, remember);
    const rq = fx.retryQueue(G);
    store.append(rq, 9.5 * S, 100, -1, 12345, 1 * S, 1); // a retry copy stored at 9.5 s
    expect(store.loseTail(8 * S, 11 * S)).toBe(4); // offsets 7, 8, 9 of T and the retry copy
    expect(q.maxOffset).toBe(7);
    expect(store.commitLogTail).toBe(7 * 256);
    expect(fx.observer.of("messagesTruncated")).toEqual([[mq, 7, 10, 1]]); // the refills of 7… are generation 1
    expect(fx.observer.of("discarded")).toEqual([[G, 12345]]); // the lost retry copy will never be consumed
    expect(fx.ctx.records("tailLost")).toMatchObject([{ mq, fromOffset: 7, count: 3 }, { mq: rq, fromOffset: 0, count: 1 }]);
    expect(store.append(mq, 12 * S, 50, -1, -1, 0, 0)).toBe(7);
    expect([q.bornUs(7), q.bodyBytes(7), q.clPos(7)]).toEqual([12 * S, 50, 7 * 256 + 206]);
  });

  it("keeps a reclaimed chunk readable when the tail it is cut in is refilled", () => {
    const { store, mq, q } = filled(CHUNK + 10, remember);
    const before = q.bornUs(5);
    store.reclaimBelow(mq, CHUNK + 10);
    store.loseTail((CHUNK - 5) * S, (CHUNK + 20) * S); // cut inside chunk 0, which was reclaimed
    expect(q.maxOffset).toBe(CHUNK - 6);
    expect(q.bornUs(5)).toBe(before);
    store.append(mq, (CHUNK + 30) * S, 100, -1, -1, 0, 0);
    expect(q.bornUs(CHUNK - 6)).toBe((CHUNK + 30) * S);
  });

  it("a window reaching before 0 loses the seeded backlog too (stored at 0, born before)", () => {
    const fx = new BrokerFixture(remember);
    fx.seedBacklog(100); // born over the hour before 0, stored at 0
    const q = fx.store(fx.queueOf(0));
    expect(fx.broker.store.loseTail(-10 * S, 5 * S)).toBe(100);
    expect([q.minOffset, q.maxOffset, fx.broker.store.commitLogTail]).toEqual([0, 0, 0]);
  });

  it("rolls back into the previous file when the first lost message opened a new one, keeping its end blank", () => {
    // 2 560 B files hold 9 messages of 256 B (2 304 B written): message 9, born at 10 s, opened file 1.
    const { store, q } = filled(12, { store: { mappedFileSizeCommitLog: 2560, tailHistoryUs: 1000 * S } });
    expect(store.loseTail(10 * S, 13 * S)).toBe(3);
    expect(store.files.map((f) => [f.startPos, f.writePos])).toEqual([[0, 2304]]);
    expect([q.maxOffset, store.commitLogTail]).toEqual([9, 2304]);
  });

  it("loses nothing when nothing was stored since", () => {
    const { store } = filled(3, remember);
    expect(store.loseTail(100 * S, 100 * S)).toBe(0);
    expect(store.commitLogTail).toBe(3 * 256);
  });
});

describe("RocketMQ retention at production scale: 1 GiB files at 10 000 msg/s × 1 KiB (§2.2, §2.3)", () => {
  // A 1 KiB message on topic "T" takes 1 024 + 1 + 155 = 1 180 B in the commit log; 10 000 msg/s write
  // 11.8 MB/s, so a 1 GiB file (909 913 messages, the 8-byte end blank aside) fills in ~91 s. Appending
  // 364 M messages here would take minutes, so each file is stood in for by one append of the whole file's
  // bytes at the time its last message would be written, (k + 1) × 91 s — retention reads nothing else of
  // a file (its last-modified time and that it is not the newest).
  const H = 3600 * S;
  const FILL_US = 91 * S;
  function day(files: number, extra: Partial<Parameters<typeof filled>[1]> = {}) {
    const fx = new BrokerFixture({ ...extra });
    const mq = fx.queueOf(0);
    const body = 1024 ** 3 - 8 - 1 - 155 - 100; // fills a file but for the end blank (and a little)
    for (let k = 0; k < files; k++) fx.broker.store.append(mq, (k + 1) * FILL_US, body, -1, -1, 0, 0);
    return { fx, store: fx.broker.store, mq, q: fx.store(mq) };
  }

  it("a file is deleted at the first 04:00 after it is 72 h old, not before, and 10 per clean-up", () => {
    // 5 h of writing = ⌊5 × 3 600 / 91⌋ = 197 files (the last one, still open, never goes).
    const { store, q } = day(197);
    expect(store.files.length).toBe(197);
    // 72 h after the first file was written (91 s) it is old enough, but it is 00:01 on day 4: nothing.
    expect(store.cleanCommitLog(72 * H + 91 * S)).toBe(0);
    expect(store.cleanCommitLog(75 * H + 59 * 60 * S)).toBe(0); // 03:59
    // 04:00 of day 4 (t = 76 h): file k (last written at (k + 1) × 91 s) is expired at the run at
    // 76 h + 10 r s if (k + 1) × 91 ≤ 14 400 + 10 r: 158 files at the first run, but 10 go per run. By the
    // 16th run (r = 15) 160 could have gone and ⌊14 550 / 91⌋ = 159 are expired: 159 deleted.
    let deleted = 0;
    for (let run = 0; run < 16; run++) deleted += store.cleanCommitLog(76 * H + run * 10 * S);
    expect(deleted).toBe(159);
    // Later in the hour files go as they expire: at 04:20, ⌊15 600 / 91⌋ = 171 are expired, 12 more —
    // 10 in that run, 2 in the next.
    expect(store.cleanCommitLog(76 * H + 20 * 60 * S)).toBe(10);
    expect(store.cleanCommitLog(76 * H + 20 * 60 * S + 10 * S)).toBe(2);
    // After 05:00 nothing more until 04:00 of day 5, though files keep expiring; then 10 per run again.
    expect(store.cleanCommitLog(77 * H + 30 * 60 * S)).toBe(0);
    expect(store.cleanCommitLog(100 * H)).toBe(10);
    expect(q.minOffset).toBe(171 + 10); // one message per file here
  });

  it("at 76 % disk expired files go at once, whatever the hour; at 86 % every file but the newest; above 90 % producers are refused", () => {
    // 197 files × ~1 GiB ≈ 197 GiB. A 259 GiB disk is at ⌈197 / 259⌉ = 77 %; 229 GiB → 87 %; 216 GiB → 92 %.
    const GiB = 1024 ** 3;
    const at = (diskGiB: number) => day(197, { store: { diskBytes: diskGiB * GiB } });
    const a = at(259);
    expect(a.store.diskRatio()).toBe(0.77);
    expect(a.store.cleanCommitLog(72 * H + 2 * 91 * S)).toBe(2); // 00:03 on day 4: files 0 and 1 have expired
    const b = at(229);
    expect(b.store.diskRatio()).toBe(0.87);
    expect(b.store.cleanCommitLog(6 * H)).toBe(10); // not expired, not 04:00: forced, 10 per run
    const c = at(216);
    expect(c.store.diskRatio()).toBe(0.92);
    c.store.cleanCommitLog(6 * H);
    expect(c.fx.broker.acceptsWrites()).toBe(false);
    // Pulls go on: the consume queue still answers.
    expect(c.fx.broker.store.queue(c.mq).maxOffset).toBe(197);
  });
});
