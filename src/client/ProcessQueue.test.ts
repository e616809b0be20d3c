import { describe, expect, it } from "vitest";
import { MessageBatch } from "../protocol/commands.ts";
import { RandomStreams } from "../sim/streams.ts";
import { ProcessQueue } from "./ProcessQueue.ts";
import { messages, range } from "./testConsumer.ts";

const MiB = 1024 * 1024;
const T0 = 5_000_000; // construction time, µs; not 0 so a time mix-up shows

/** Body length of every message, or per offset. */
type Bodies = number | ((offset: number) => number);

/** putMessage of messages at `offsets` (their columns: the body length given, everything else default). */
function put(pq: ProcessQueue, offsets: number[], bodyBytes: Bodies = 123, maxOffset = -1): boolean {
  return pq.putMessage(messages(offsets, { bodyBytes }), maxOffset);
}

function remove(pq: ProcessQueue, offsets: number[], nowUs = T0): number {
  return pq.removeMessage(offsets, offsets.length, nowUs);
}

function cached(pq: ProcessQueue): number[] {
  const out: number[] = [];
  pq.forEachCached((o) => out.push(o));
  return out;
}

describe("ProcessQueue acceptance cases of ProcessQueueTest (spec §15.2)", () => {
  it("msgCount goes 100 → 90 after takeMessages(10) + commit() → 89 after removing the last cached message", () => {
    const pq = new ProcessQueue(T0);
    put(pq, range(0, 100));
    expect(pq.msgCount).toBe(100);
    pq.takeMessages(10, T0);
    pq.commit();
    expect(pq.msgCount).toBe(90);
    remove(pq, [pq.lastKey]);
    expect(pq.msgCount).toBe(89);
  });

  it("msgSize of 123-byte bodies goes 12300 → 11070 → 10947 over the same sequence", () => {
    const pq = new ProcessQueue(T0);
    put(pq, range(0, 100));
    expect(pq.msgSize).toBe(12300);
    pq.takeMessages(10, T0);
    pq.commit();
    expect(pq.msgSize).toBe(11070);
    remove(pq, [pq.lastKey]);
    expect(pq.msgSize).toBe(10947);
  });

  it("containsMessage: after putting message 0 only, 0 is contained and 1 is not", () => {
    const pq = new ProcessQueue(T0);
    put(pq, [0]);
    expect(pq.contains(0)).toBe(true);
    expect(pq.contains(1)).toBe(false);
  });

  it("fillProcessQueueInfo: 102400 messages of 123 bytes report 12 MiB, then 10, 9 and 0 after taking 10000, 10000 and 80000", () => {
    // 102400 × 123 B = 12.01 MiB; 92400 × 123 = 10.84; 82400 × 123 = 9.67; 2400 × 123 = 0.28 (floored).
    const pq = new ProcessQueue(T0);
    put(pq, range(0, 102_400));
    expect(pq.cachedMiB).toBe(12);
    for (const [take, mib] of [[10_000, 10], [10_000, 9], [80_000, 0]] as const) {
      expect(pq.takeMessages(take, T0)).toHaveLength(take);
      pq.commit();
      expect(pq.cachedMiB).toBe(mib);
    }
    expect(pq.msgCount).toBe(2400);
  });

  it("fillProcessQueueInfo: a consuming map holding offset 0 has one entry", () => {
    const pq = new ProcessQueue(T0);
    put(pq, [0]);
    expect(pq.takeMessages(1, T0)).toEqual([0]);
    expect(pq.consumingCount).toBe(1);
  });

  it("rollback on an empty consuming map leaves it empty", () => {
    const pq = new ProcessQueue(T0);
    pq.rollback();
    expect(pq.consumingCount).toBe(0);
    expect(pq.msgCount).toBe(0);
    expect(pq.firstKey).toBe(-1);
  });
});

describe("ProcessQueue.cachedMiB (spec §2 step 5)", () => {
  it("is floor(msgSize / 1 MiB): 100 MiB exactly reads 100 and one byte less reads 99", () => {
    const pq = new ProcessQueue(T0);
    put(pq, range(0, 102_400), 1024);
    expect(pq.msgSize).toBe(100 * MiB);
    expect(pq.cachedMiB).toBe(100);
    const odd = new ProcessQueue(T0);
    put(odd, [0], 100 * MiB - 1);
    expect(odd.cachedMiB).toBe(99);
  });

  it("reads 0 for an empty queue and for anything under 1 MiB", () => {
    const pq = new ProcessQueue(T0);
    expect(pq.cachedMiB).toBe(0);
    put(pq, [0], MiB - 1);
    expect(pq.cachedMiB).toBe(0);
    put(pq, [1], 1);
    expect(pq.cachedMiB).toBe(1);
  });
});

describe("ProcessQueue.putMessage (spec §3.1)", () => {
  it("counts each new offset once and adds its body length to msgSize", () => {
    const pq = new ProcessQueue(T0);
    put(pq, [3, 4, 5], (o) => o * 10);
    expect(pq.msgCount).toBe(3);
    expect(pq.msgSize).toBe(120);
    expect(cached(pq)).toEqual([3, 4, 5]);
  });

  it("does not count an offset already cached, whether from an earlier batch or the same one", () => {
    const pq = new ProcessQueue(T0);
    put(pq, [1, 2]);
    put(pq, [2, 3, 3, 1]);
    expect(pq.msgCount).toBe(3);
    expect(pq.msgSize).toBe(3 * 123);
  });

  it("counts a zero-length body as a cached message", () => {
    const pq = new ProcessQueue(T0);
    put(pq, [7], 0);
    expect(pq.contains(7)).toBe(true);
    expect(pq.msgCount).toBe(1);
    expect(pq.msgSize).toBe(0);
    expect(pq.firstKey).toBe(7);
  });

  it("sets queueOffsetMax to the last new message in list order, not the largest offset", () => {
    const pq = new ProcessQueue(T0);
    put(pq, [5, 3, 4]);
    expect(pq.queueOffsetMax).toBe(4);
    put(pq, [9, 1]);
    expect(pq.queueOffsetMax).toBe(1);
  });

  it("leaves queueOffsetMax alone for duplicates at the end of a batch", () => {
    const pq = new ProcessQueue(T0);
    put(pq, [2]);
    put(pq, [10, 2]);
    expect(pq.queueOffsetMax).toBe(10);
    put(pq, [2, 10]);
    expect(pq.queueOffsetMax).toBe(10);
  });

  it("reads only the first `count` rows of a reused batch", () => {
    const pq = new ProcessQueue(T0);
    const batch = messages([4, 5, 6, 99, 100], { bodyBytes: 123 });
    batch.count = 3;
    pq.putMessage(batch);
    expect(cached(pq)).toEqual([4, 5, 6]);
    expect(pq.msgSize).toBe(3 * 123);
    expect(pq.queueOffsetMax).toBe(6);
  });

  it("returns dispatchToConsume true for the first non-empty put and false while consuming", () => {
    const pq = new ProcessQueue(T0);
    expect(put(pq, [0, 1])).toBe(true);
    expect(pq.consuming).toBe(true);
    expect(put(pq, [2])).toBe(false);
  });

  it("returns false for an empty batch into an empty queue and leaves consuming false", () => {
    const pq = new ProcessQueue(T0);
    expect(put(pq, [])).toBe(false);
    expect(pq.consuming).toBe(false);
  });

  it("returns true for an empty batch when the queue holds messages and nobody is consuming", () => {
    const pq = new ProcessQueue(T0);
    put(pq, [0]);
    pq.takeMessages(1, T0);
    pq.takeMessages(1, T0); // nothing left: consuming = false (§3.4)
    pq.rollback(); // 0 is back in the cache
    expect(pq.consuming).toBe(false);
    expect(put(pq, [])).toBe(true);
  });

  it("sets msgAccCnt to maxOffset minus the last message's offset when that is positive", () => {
    const pq = new ProcessQueue(T0);
    put(pq, range(0, 10), 1, 100);
    expect(pq.msgAccCnt).toBe(91);
    put(pq, [20, 15], 1, 40);
    expect(pq.msgAccCnt).toBe(25); // from the last in list order (15), not the largest
  });

  it("keeps msgAccCnt when the difference is not positive or maxOffset is unknown", () => {
    const pq = new ProcessQueue(T0);
    put(pq, [0], 1, 50);
    expect(pq.msgAccCnt).toBe(50);
    put(pq, [1], 1, 1);
    expect(pq.msgAccCnt).toBe(50);
    put(pq, [2], 1, -1);
    expect(pq.msgAccCnt).toBe(50);
    put(pq, [], 1, 1000);
    expect(pq.msgAccCnt).toBe(50);
  });

  it("takes msgAccCnt from the last message even when it is a duplicate", () => {
    const pq = new ProcessQueue(T0);
    put(pq, [5]);
    put(pq, [5], 123, 30);
    expect(pq.msgAccCnt).toBe(25);
  });
});

describe("ProcessQueue.removeMessage (spec §3.2)", () => {
  it("returns −1 on an empty queue and changes nothing but lastConsumeTimestamp", () => {
    const pq = new ProcessQueue(T0);
    put(pq, [4]);
    pq.takeMessages(1, T0); // cache empty, one message in flight
    const before = { count: pq.msgCount, size: pq.msgSize, max: pq.queueOffsetMax, consuming: pq.consumingCount };
    expect(remove(pq, [4], T0 + 777)).toBe(-1);
    expect(pq.lastConsumeTimestampUs).toBe(T0 + 777);
    expect({ count: pq.msgCount, size: pq.msgSize, max: pq.queueOffsetMax, consuming: pq.consumingCount }).toEqual(before);
  });

  it("returns the smallest offset still cached", () => {
    const pq = new ProcessQueue(T0);
    put(pq, range(10, 5));
    expect(remove(pq, [10])).toBe(11);
    expect(remove(pq, [13])).toBe(11);
    expect(remove(pq, [11, 12])).toBe(14);
  });

  it("returns queueOffsetMax + 1 when the queue becomes empty", () => {
    const pq = new ProcessQueue(T0);
    put(pq, range(10, 5));
    expect(remove(pq, range(10, 5))).toBe(15);
  });

  it("returns queueOffsetMax + 1 even when that is below the largest offset removed (list-order max)", () => {
    const pq = new ProcessQueue(T0);
    put(pq, [5, 3, 4]);
    expect(remove(pq, [3, 4, 5])).toBe(5);
  });

  it("subtracts the removed bodies and resets msgSize to 0 when msgCount reaches 0", () => {
    const pq = new ProcessQueue(T0);
    put(pq, [0, 1, 2], (o) => 100 + o);
    remove(pq, [1]);
    expect(pq.msgCount).toBe(2);
    expect(pq.msgSize).toBe(202);
    remove(pq, [0, 2]);
    expect(pq.msgCount).toBe(0);
    expect(pq.msgSize).toBe(0);
  });

  it("changes nothing for an offset that is not cached, but still answers with the commit offset", () => {
    const pq = new ProcessQueue(T0);
    put(pq, [2, 4]);
    expect(remove(pq, [3])).toBe(2);
    expect(remove(pq, [1000])).toBe(2);
    expect(pq.msgCount).toBe(2);
    expect(pq.msgSize).toBe(246);
    expect(cached(pq)).toEqual([2, 4]);
  });

  it("sets lastConsumeTimestamp to now", () => {
    const pq = new ProcessQueue(T0);
    put(pq, [0]);
    remove(pq, [0], T0 + 42);
    expect(pq.lastConsumeTimestampUs).toBe(T0 + 42);
  });

  it("counts a message removed twice in one call only once", () => {
    const pq = new ProcessQueue(T0);
    put(pq, [0, 1]);
    remove(pq, [0, 0]);
    expect(pq.msgCount).toBe(1);
    expect(pq.msgSize).toBe(123);
  });

  it("reads only the first `count` offsets of a reused buffer", () => {
    const pq = new ProcessQueue(T0);
    put(pq, [0, 1, 2]);
    expect(pq.removeMessage(new Float64Array([0, 1, 2]), 1, T0)).toBe(1);
    expect(cached(pq)).toEqual([1, 2]);
  });
});

describe("ProcessQueue.getMaxSpan (spec §3.3)", () => {
  it("is 0 for an empty queue and for a single message", () => {
    const pq = new ProcessQueue(T0);
    expect(pq.getMaxSpan()).toBe(0);
    put(pq, [77]);
    expect(pq.getMaxSpan()).toBe(0);
  });

  it("is lastKey − firstKey of the cached messages", () => {
    const pq = new ProcessQueue(T0);
    put(pq, [100, 2100, 500]);
    expect(pq.getMaxSpan()).toBe(2000);
    remove(pq, [100]);
    expect(pq.getMaxSpan()).toBe(1600);
  });

  it("does not count messages taken by the orderly service", () => {
    const pq = new ProcessQueue(T0);
    put(pq, range(0, 10));
    pq.takeMessages(5, T0);
    expect(pq.getMaxSpan()).toBe(4);
    expect(pq.firstKey).toBe(5);
  });
});

describe("ProcessQueue.takeMessages (spec §3.4)", () => {
  it("moves up to n smallest messages out of the cache in offset order without touching msgCount or msgSize", () => {
    const pq = new ProcessQueue(T0);
    put(pq, [7, 3, 5, 9]);
    expect(pq.takeMessages(3, T0 + 1)).toEqual([3, 5, 7]);
    expect(cached(pq)).toEqual([9]);
    expect(pq.msgCount).toBe(4);
    expect(pq.msgSize).toBe(4 * 123);
    expect(pq.consumingCount).toBe(3);
    expect(pq.lastConsumeTimestampUs).toBe(T0 + 1);
  });

  it("takes what there is when fewer than n are cached, and keeps consuming true", () => {
    const pq = new ProcessQueue(T0);
    put(pq, [1, 2]);
    expect(pq.takeMessages(32, T0)).toEqual([1, 2]);
    expect(pq.consuming).toBe(true);
  });

  it("sets consuming to false when nothing was taken", () => {
    const pq = new ProcessQueue(T0);
    put(pq, [1]);
    pq.takeMessages(1, T0);
    expect(pq.consuming).toBe(true);
    expect(pq.takeMessages(1, T0 + 5)).toEqual([]);
    expect(pq.consuming).toBe(false);
    expect(pq.lastConsumeTimestampUs).toBe(T0 + 5);
  });
});

describe("ProcessQueue.commit (spec §3.4)", () => {
  it("returns the last taken offset + 1 and removes the taken messages from msgCount and msgSize", () => {
    const pq = new ProcessQueue(T0);
    put(pq, range(0, 5), (o) => 10 * (o + 1));
    pq.takeMessages(2, T0);
    expect(pq.commit()).toBe(2);
    expect(pq.msgCount).toBe(3);
    expect(pq.msgSize).toBe(30 + 40 + 50);
    expect(pq.consumingCount).toBe(0);
  });

  it("sets msgSize to 0 when the commit empties the queue", () => {
    const pq = new ProcessQueue(T0);
    put(pq, [0, 1]);
    pq.takeMessages(2, T0);
    pq.commit();
    expect(pq.msgCount).toBe(0);
    expect(pq.msgSize).toBe(0);
  });

  it("commits the largest taken offset even when messages were taken out of offset order", () => {
    // consumingMsgOrderlyTreeMap is sorted: lastKey is its largest offset whatever the order of taking.
    const pq = new ProcessQueue(T0);
    put(pq, [0, 1, 2]);
    pq.takeMessages(3, T0);
    pq.makeMessageToConsumeAgain([1]);
    expect(pq.takeMessages(1, T0)).toEqual([1]);
    expect(pq.commit()).toBe(3);
    expect(pq.msgCount).toBe(0);
  });

  it("throws when nothing was taken, where RocketMQ would fail on lastKey of an empty map", () => {
    const pq = new ProcessQueue(T0);
    put(pq, [0]);
    expect(() => pq.commit()).toThrow(/nothing taken/);
  });
});

describe("ProcessQueue.rollback (spec §3.4)", () => {
  it("puts every taken message back into the cache with its body size", () => {
    const pq = new ProcessQueue(T0);
    put(pq, range(0, 4), (o) => o + 1);
    pq.takeMessages(3, T0);
    pq.rollback();
    expect(cached(pq)).toEqual([0, 1, 2, 3]);
    expect(pq.consumingCount).toBe(0);
    expect(pq.msgCount).toBe(4);
    // The sizes travelled with the messages: removing them all subtracts exactly msgSize.
    remove(pq, [3]);
    expect(pq.msgSize).toBe(1 + 2 + 3);
  });
});

describe("ProcessQueue.makeMessageToConsumeAgain (spec §3.4)", () => {
  it("moves only the given taken messages back into the cache", () => {
    const pq = new ProcessQueue(T0);
    put(pq, range(0, 5));
    pq.takeMessages(3, T0);
    pq.makeMessageToConsumeAgain([0, 2]);
    expect(cached(pq)).toEqual([0, 2, 3, 4]);
    expect(pq.consumingCount).toBe(1);
    expect(pq.commit()).toBe(2);
    expect(pq.msgCount).toBe(4);
  });

  it("ignores offsets that were not taken", () => {
    const pq = new ProcessQueue(T0);
    put(pq, [0, 1]);
    pq.takeMessages(1, T0);
    pq.makeMessageToConsumeAgain([1, 50]);
    expect(cached(pq)).toEqual([1]);
    expect(pq.consumingCount).toBe(1);
  });

  it("lets the same messages be taken again in offset order", () => {
    const pq = new ProcessQueue(T0);
    put(pq, range(0, 3));
    pq.takeMessages(1, T0);
    pq.makeMessageToConsumeAgain([0]);
    expect(pq.takeMessages(2, T0)).toEqual([0, 1]);
  });
});

describe("ProcessQueue.clear (spec §3.4)", () => {
  it("empties both maps and zeroes msgCount, msgSize and queueOffsetMax", () => {
    const pq = new ProcessQueue(T0);
    put(pq, range(10, 6));
    pq.takeMessages(2, T0);
    pq.clear();
    expect(pq.msgCount).toBe(0);
    expect(pq.msgSize).toBe(0);
    expect(pq.queueOffsetMax).toBe(0);
    expect(pq.consumingCount).toBe(0);
    expect(pq.firstKey).toBe(-1);
    expect(pq.lastKey).toBe(-1);
    expect(cached(pq)).toEqual([]);
    expect(remove(pq, [12])).toBe(-1);
  });

  it("leaves a queue that accepts new messages at unrelated offsets", () => {
    const pq = new ProcessQueue(T0);
    put(pq, range(0, 100));
    pq.clear();
    put(pq, [1_000_000]);
    expect(pq.msgCount).toBe(1);
    expect(pq.firstKey).toBe(1_000_000);
    expect(pq.getMaxSpan()).toBe(0);
  });
});

describe("ProcessQueue.isLockExpired (spec §3.5)", () => {
  it("is false at exactly 30000 ms after the last lock and true 1 µs later", () => {
    const pq = new ProcessQueue(T0);
    expect(pq.isLockExpired(T0 + 30_000_000)).toBe(false);
    expect(pq.isLockExpired(T0 + 30_000_001)).toBe(true);
  });

  it("measures from lastLockTimestamp, which a successful lock refreshes", () => {
    const pq = new ProcessQueue(T0);
    pq.lastLockTimestampUs = T0 + 20_000_000;
    expect(pq.isLockExpired(T0 + 50_000_000)).toBe(false);
    expect(pq.isLockExpired(T0 + 50_000_001)).toBe(true);
  });

  it("takes a different lock lifetime in ms when given one", () => {
    const pq = new ProcessQueue(T0);
    expect(pq.isLockExpired(T0 + 1_000_000, 1000)).toBe(false);
    expect(pq.isLockExpired(T0 + 1_000_001, 1000)).toBe(true);
  });
});

describe("ProcessQueue.isPullExpired (spec §3.6)", () => {
  it("is false at exactly 120000 ms after the last pull and true 1 µs later", () => {
    const pq = new ProcessQueue(T0);
    expect(pq.isPullExpired(T0 + 120_000_000, 120_000)).toBe(false);
    expect(pq.isPullExpired(T0 + 120_000_001, 120_000)).toBe(true);
  });

  it("measures from lastPullTimestamp, which every pullMessage call sets", () => {
    const pq = new ProcessQueue(T0);
    pq.lastPullTimestampUs = T0 + 100_000_000;
    expect(pq.isPullExpired(T0 + 200_000_000, 120_000)).toBe(false);
    expect(pq.isPullExpired(T0 + 220_000_001, 120_000)).toBe(true);
  });
});

describe("ProcessQueue.markConsumeStart (spec §3.7, §7.2 step 4)", () => {
  it("records CONSUME_START_TIME for a cached message and reports −1 for others", () => {
    const pq = new ProcessQueue(T0);
    put(pq, [0, 1]);
    expect(pq.consumeStartUs(0)).toBe(-1);
    pq.markConsumeStart(0, T0 + 9);
    expect(pq.consumeStartUs(0)).toBe(T0 + 9);
    expect(pq.consumeStartUs(1)).toBe(-1);
    pq.markConsumeStart(5, T0 + 9); // not cached: ignored
    expect(pq.consumeStartUs(5)).toBe(-1);
  });

  it("forgets the start time when the message is removed and re-put", () => {
    const pq = new ProcessQueue(T0);
    put(pq, [0]);
    pq.markConsumeStart(0, T0 + 9);
    remove(pq, [0]);
    expect(pq.consumeStartUs(0)).toBe(-1);
    put(pq, [0]);
    expect(pq.consumeStartUs(0)).toBe(-1);
  });

  it("keeps start times across growth of the offset window", () => {
    const pq = new ProcessQueue(T0, 16);
    put(pq, [3]);
    pq.markConsumeStart(3, T0 + 1);
    put(pq, [100_003]);
    expect(pq.consumeStartUs(3)).toBe(T0 + 1);
    expect(pq.consumeStartUs(100_003)).toBe(-1);
  });
});

describe("ProcessQueue offset window (ring behind the sorted map of spec §3)", () => {
  it("keeps firstKey and lastKey right for out-of-order puts", () => {
    const pq = new ProcessQueue(T0, 16);
    put(pq, [50, 40, 45, 60, 41]);
    expect([pq.firstKey, pq.lastKey]).toEqual([40, 60]);
    expect(cached(pq)).toEqual([40, 41, 45, 50, 60]);
  });

  it("grows when puts lie further apart than its capacity, keeping every message and its size", () => {
    const pq = new ProcessQueue(T0, 16);
    const store = (o: number) => (o % 97) + 1;
    put(pq, [0, 5, 15], store);
    put(pq, [16, 1000, 40_000], store);
    expect(cached(pq)).toEqual([0, 5, 15, 16, 1000, 40_000]);
    expect(pq.msgSize).toBe([0, 5, 15, 16, 1000, 40_000].reduce((s, o) => s + (o % 97) + 1, 0));
    expect(pq.contains(40_000 - 16)).toBe(false); // would alias offset 40000 − 16 in the old 16-slot ring
  });

  it("grows when a put lands below firstKey by more than its capacity", () => {
    const pq = new ProcessQueue(T0, 16);
    put(pq, [10_000, 10_001]);
    put(pq, [3]);
    expect(cached(pq)).toEqual([3, 10_000, 10_001]);
    expect(pq.firstKey).toBe(3);
  });

  it("holds a span larger than 65536 and reports it", () => {
    const pq = new ProcessQueue(T0);
    put(pq, [1, 70_000, 200_001]);
    expect(pq.getMaxSpan()).toBe(200_000);
    remove(pq, [1]);
    expect(pq.firstKey).toBe(70_000);
    remove(pq, [200_001]);
    expect([pq.firstKey, pq.lastKey]).toEqual([70_000, 70_000]);
  });

  it("moves firstKey over a run of removed offsets and lastKey back over removed offsets", () => {
    const pq = new ProcessQueue(T0, 16);
    put(pq, range(0, 12));
    remove(pq, [1, 2, 3, 8, 9, 10]);
    remove(pq, [0]);
    expect(pq.firstKey).toBe(4);
    remove(pq, [11]);
    expect(pq.lastKey).toBe(7);
  });

  it("keeps working when offsets wrap around the ring many times", () => {
    const pq = new ProcessQueue(T0, 16);
    for (let base = 0; base < 10_000; base += 10) {
      put(pq, range(base, 10));
      remove(pq, range(base, 10));
    }
    expect(pq.msgCount).toBe(0);
    put(pq, [123_456]);
    expect(cached(pq)).toEqual([123_456]);
  });

  it("handles offsets beyond 2^32", () => {
    const pq = new ProcessQueue(T0);
    const big = 2 ** 33 + 5;
    put(pq, [big, big + 3]);
    expect(pq.contains(big)).toBe(true);
    expect(pq.contains(big + 1)).toBe(false);
    expect(remove(pq, [big])).toBe(big + 3);
  });
});

describe("ProcessQueue against a sorted-map reference model (spec §3.1–§3.4)", () => {
  /** The Java ProcessQueue, transliterated with plain maps: the model the ring must agree with. */
  class Reference {
    tree = new Map<number, number>();
    consuming = new Map<number, number>();
    msgCount = 0;
    msgSize = 0;
    queueOffsetMax = 0;
    sortedKeys(): number[] {
      return [...this.tree.keys()].sort((a, b) => a - b);
    }
    put(offsets: number[], size: (o: number) => number): void {
      let n = 0;
      for (const o of offsets) {
        if (this.tree.has(o)) continue;
        this.tree.set(o, size(o));
        n++;
        this.queueOffsetMax = o;
        this.msgSize += size(o);
      }
      this.msgCount += n;
    }
    remove(offsets: number[]): number {
      if (this.tree.size === 0) return -1;
      let result = this.queueOffsetMax + 1;
      let n = 0;
      for (const o of offsets) {
        const s = this.tree.get(o);
        if (s === undefined) continue;
        this.tree.delete(o);
        n++;
        this.msgSize -= s;
      }
      this.msgCount -= n;
      if (this.msgCount === 0) this.msgSize = 0;
      if (this.tree.size > 0) result = this.sortedKeys()[0]!;
      return result;
    }
    take(n: number): number[] {
      const taken = this.sortedKeys().slice(0, n);
      for (const o of taken) {
        this.consuming.set(o, this.tree.get(o)!);
        this.tree.delete(o);
      }
      return taken;
    }
    commit(): number {
      const keys = [...this.consuming.keys()];
      const last = Math.max(...keys);
      this.msgCount -= keys.length;
      if (this.msgCount === 0) this.msgSize = 0;
      else for (const s of this.consuming.values()) this.msgSize -= s;
      this.consuming.clear();
      return last + 1;
    }
    rollback(): void {
      for (const [o, s] of this.consuming) this.tree.set(o, s);
      this.consuming.clear();
    }
    again(offsets: number[]): void {
      for (const o of offsets) {
        const s = this.consuming.get(o);
        if (s === undefined) continue;
        this.consuming.delete(o);
        this.tree.set(o, s);
      }
    }
  }

  it("agrees on every answer and counter over 10^4 random operations (seed 20240601)", () => {
    const rng = new RandomStreams(20_240_601).get("test/ProcessQueue/reference");
    const int = (n: number) => Math.floor(rng() * n);
    const size = (o: number) => (o % 13 === 0 ? 0 : (o * 2_654_435_761) % 5000);
    const pq = new ProcessQueue(T0, 16);
    const ref = new Reference();
    let step = 0;
    let checks = 0;
    // expect() per comparison would dominate the run time; compare cheaply and report the first difference.
    const same = (what: string, actual: unknown, expected: unknown): void => {
      checks++;
      if (JSON.stringify(actual) !== JSON.stringify(expected)) {
        expect({ step, what, value: actual }).toEqual({ step, what, value: expected });
      }
    };
    let base = 0;
    let farJumps = 0;
    let widestSpan = 0;
    for (; step < 10_000; step++) {
      const op = rng();
      if (op < 0.45) {
        // A batch near the moving pull position; sometimes far ahead (span > 65536) or behind.
        const r = rng();
        const start = r < 0.03 ? base + 65_537 + int(100_000) : r < 0.06 ? Math.max(0, base - int(3000)) : base + int(50);
        if (r < 0.03) farJumps++;
        const batch = Array.from({ length: 1 + int(16) }, () => start + int(64));
        const maxOffset = start + int(200);
        put(pq, batch, size, maxOffset);
        ref.put(batch, size);
        base += int(40);
      } else if (op < 0.85) {
        // Acknowledge: half the time the smallest cached messages in order, else scattered picks that
        // include offsets not cached at all.
        const keys = ref.sortedKeys();
        const n = 1 + int(24);
        const picks = rng() < 0.5
          ? keys.slice(0, n)
          : Array.from({ length: n }, () => (keys.length > 0 && rng() < 0.9 ? keys[int(keys.length)]! : base + int(200)));
        same("removeMessage", pq.removeMessage(picks, picks.length, T0 + step), ref.remove(picks));
      } else if (op < 0.93) {
        const n = int(20);
        same("takeMessages", pq.takeMessages(n, T0 + step), ref.take(n));
        if (ref.consuming.size > 0) same("commit", pq.commit(), ref.commit());
      } else {
        const taken = ref.take(int(5));
        same("takeMessages", pq.takeMessages(taken.length, T0 + step), taken);
        if (rng() < 0.5) {
          pq.rollback();
          ref.rollback();
        } else {
          // Orderly SUSPEND of part of what was taken, then consume on.
          const back = taken.filter(() => rng() < 0.5);
          pq.makeMessageToConsumeAgain(back);
          ref.again(back);
          const n = int(3);
          same("takeMessages", pq.takeMessages(n, T0 + step), ref.take(n));
          if (ref.consuming.size > 0) same("commit", pq.commit(), ref.commit());
        }
      }
      const keys = ref.sortedKeys();
      const first = keys.length > 0 ? keys[0]! : -1;
      const last = keys.length > 0 ? keys[keys.length - 1]! : -1;
      same("firstKey", pq.firstKey, first);
      same("lastKey", pq.lastKey, last);
      same("getMaxSpan", pq.getMaxSpan(), last - first);
      same("msgCount", pq.msgCount, ref.msgCount);
      same("msgSize", pq.msgSize, ref.msgSize);
      same("queueOffsetMax", pq.queueOffsetMax, ref.queueOffsetMax);
      const probe = keys.length > 0 ? first + int(last - first + 2) : int(1000);
      same(`contains(${probe})`, pq.contains(probe), ref.tree.has(probe));
      if (step % 250 === 0) same("forEachCached", cached(pq), keys);
      widestSpan = Math.max(widestSpan, last - first);
    }
    expect(checks).toBeGreaterThan(75_000);
    // The run must actually have exercised the wide-window path.
    expect(farJumps).toBeGreaterThan(50);
    expect(widestSpan).toBeGreaterThan(65_536);
  });
});

describe("ProcessQueue message columns (the client's copy of each message, §3.1, §3.7, §9.1)", () => {
  /** Messages whose every column differs per offset, so a mixed-up row shows. */
  function varied(offsets: number[]): MessageBatch {
    const batch = new MessageBatch(offsets.length);
    offsets.forEach((o, i) => {
      batch.offsets[i] = o;
      batch.bodyBytes[i] = 100 + o;
      batch.tag[i] = o % 3;
      batch.originKey[i] = 7 * 2 ** 32 + 1000 + o;
      batch.originBornUs[i] = -3_600_000_000 + 36_000_000 * o;
      batch.reconsumeTimes[i] = o % 4;
    });
    batch.count = offsets.length;
    return batch;
  }
  const columns = (pq: ProcessQueue, o: number) => [pq.bodyBytes(o), pq.tag(o), pq.originKey(o), pq.originBornUs(o), pq.reconsumeTimes(o)];
  const expected = (o: number) => [100 + o, o % 3, 7 * 2 ** 32 + 1000 + o, -3_600_000_000 + 36_000_000 * o, o % 4];

  it("putMessage: keeps each message's bodyBytes, tag, originKey, originBornUs and reconsumeTimes as the pull answer carried them", () => {
    const pq = new ProcessQueue(T0);
    pq.putMessage(varied([5, 3, 6]));
    for (const o of [3, 5, 6]) expect(columns(pq, o), `offset ${o}`).toEqual(expected(o));
    expect(pq.msgSize).toBe(105 + 103 + 106);
  });

  it("accessors: an offset not cached, or removed, reads −1 for bodyBytes, tag and originKey and 0 for originBornUs and reconsumeTimes", () => {
    const pq = new ProcessQueue(T0);
    pq.putMessage(varied([1, 2]));
    remove(pq, [1]);
    for (const o of [0, 1, 3]) expect(columns(pq, o), `offset ${o}`).toEqual([-1, -1, -1, 0, 0]);
    expect(columns(pq, 2)).toEqual(expected(2));
  });

  it("putMessage: an offset already cached keeps its first copy's columns", () => {
    const pq = new ProcessQueue(T0);
    pq.putMessage(varied([4]));
    pq.putMessage(messages([4], { bodyBytes: 9, tag: 2, reconsumeTimes: 3, originBornUs: 1 }));
    expect(columns(pq, 4)).toEqual(expected(4));
    expect(pq.msgSize).toBe(104);
  });

  it("takeMessages: the columns travel with taken messages and come back with rollback and makeMessageToConsumeAgain", () => {
    const pq = new ProcessQueue(T0);
    pq.putMessage(varied([0, 1, 2, 3]));
    pq.takeMessages(2, T0);
    expect(columns(pq, 0)).toEqual([-1, -1, -1, 0, 0]); // out of the cache while taken
    pq.rollback();
    expect(columns(pq, 0)).toEqual(expected(0));
    expect(columns(pq, 1)).toEqual(expected(1));
    pq.takeMessages(3, T0);
    pq.makeMessageToConsumeAgain([2]);
    expect(columns(pq, 2)).toEqual(expected(2));
  });

  it("grow: the columns survive growth of the offset window", () => {
    const pq = new ProcessQueue(T0, 16);
    pq.putMessage(varied([3, 10]));
    pq.putMessage(varied([70_003]));
    for (const o of [3, 10, 70_003]) expect(columns(pq, o), `offset ${o}`).toEqual(expected(o));
  });
});

describe("release (memory of a dead ProcessQueue)", () => {
  it("release: a dropped queue gives up its entries but keeps the counters it ended with", () => {
    const pq = new ProcessQueue(T0);
    put(pq, range(0, 3000));
    pq.dropped = true;
    pq.release();
    expect(cached(pq)).toEqual([]);
    expect([pq.firstKey, pq.lastKey, pq.getMaxSpan()]).toEqual([-1, -1, 0]);
    expect([pq.msgCount, pq.msgSize]).toEqual([3000, 3000 * 123]);
    // A late put (a response after the drop) still works on the shrunken ring.
    put(pq, range(5000, 40));
    expect(cached(pq)).toEqual(range(5000, 40));
  });

  it("release: does nothing to a live queue", () => {
    const pq = new ProcessQueue(T0);
    put(pq, range(0, 10));
    pq.release();
    expect(cached(pq)).toEqual(range(0, 10));
  });
});

describe("ProcessQueue byte counters (issue 11 defect 4: bodies up to the 1 GiB maxMessageSize limit)", () => {
  const GiB = 1024 * MiB;

  it("keeps msgSize exact past 2^31 and 2^32 bytes: five 1 GiB bodies cache 5 GiB, cachedMiB 5120", () => {
    const pq = new ProcessQueue(T0);
    put(pq, range(0, 5), GiB);
    expect(pq.msgSize).toBe(5 * GiB);
    expect(pq.cachedMiB).toBe(5120);
    remove(pq, [0, 1]);
    expect(pq.msgSize).toBe(3 * GiB);
  });

  it("subtracts 1 GiB bodies exactly on an orderly commit of part of the cache", () => {
    const pq = new ProcessQueue(T0);
    put(pq, range(0, 5), GiB);
    pq.takeMessages(2, T0);
    pq.commit();
    expect([pq.msgCount, pq.msgSize]).toEqual([3, 3 * GiB]);
  });

  it("holds a 1 GiB body in its column (length + 1 still fits) and reads it back", () => {
    const pq = new ProcessQueue(T0);
    put(pq, [7], GiB);
    expect(pq.bodyBytes(7)).toBe(GiB);
    const batch = new MessageBatch(1);
    batch.add(messages([7], { bodyBytes: GiB }), 0);
    expect(batch.bodyBytes[0]).toBe(GiB);
  });
});
