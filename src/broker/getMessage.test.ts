// DefaultMessageStore#getMessage (spec §13.2) and the status → response code table (§13.3), on a bare
// consume queue (QueueStore) with a chosen commit-log tail and page-cache size.
import { describe, expect, it } from "vitest";
import { BROKER_CONSTANTS, BROKER_CONFIG_DEFAULTS, type BrokerConfig } from "../scenario/defaults.ts";
import { ResponseCode } from "../protocol/codes.ts";
import {
  GET_MESSAGE_STATUS_NAMES,
  getMessage,
  type GetMessageContext,
  GetMessageResult,
  GetMessageStatus,
  responseCodeOf,
} from "./getMessage.ts";
import { QueueStore } from "./QueueStore.ts";

const KiB = 1024;
const MiB = 1024 * KiB;
const TAG_A = 0;
const TAG_B = 1;
const ALL = null; // subscription "*"

/** What a stored message takes besides its body; the byte caps count whole stored messages. */
const OVERHEAD = "TopicTest".length + BROKER_CONSTANTS.STORE_OVERHEAD_BYTES;

/** A queue whose messages sit back to back in the commit log (clPos = running sum of body sizes). */
class Fixture {
  readonly store = new QueueStore(0, "TopicTest", "broker-a", 0);
  tail = 0;
  add(n: number, bodyBytes: number, tag = TAG_A): this {
    for (let i = 0; i < n; i++) {
      this.store.append(1000 + this.store.maxOffset, this.tail, bodyBytes, tag, -1, 0, 0);
      this.tail += bodyBytes;
    }
    return this;
  }
  /** Messages whose whole stored size (body + overhead) is `storedBytes`. */
  addStored(n: number, storedBytes: number, tag = TAG_A): this {
    return this.add(n, storedBytes - OVERHEAD, tag);
  }
  addTags(tags: number[], bodyBytes = 100): this {
    for (const t of tags) this.add(1, bodyBytes, t);
    return this;
  }
  /** Every message in page cache. */
  hot(config: BrokerConfig = BROKER_CONFIG_DEFAULTS, profile: "4.9" | "5.x" = "5.x"): GetMessageContext {
    return { config, hotBytes: Number.MAX_SAFE_INTEGER, commitLogTail: this.tail, profile, maxCap: Infinity };
  }
  /** Every message on disk: the tail is further from each message than hotBytes. */
  cold(config: BrokerConfig = BROKER_CONFIG_DEFAULTS, profile: "4.9" | "5.x" = "5.x"): GetMessageContext {
    return { config, hotBytes: 0, commitLogTail: this.tail + 1, profile, maxCap: Infinity };
  }
  get(offset: number, maxMsgNums: number, ctx: GetMessageContext, tagSet: Set<number> | null = ALL): GetMessageResult {
    return getMessage(this.store, offset, maxMsgNums, tagSet, ctx, new GetMessageResult());
  }
}

function offsets(r: GetMessageResult): number[] {
  return Array.from(r.offsets.subarray(0, r.count));
}
function statusName(r: GetMessageResult): string {
  return GET_MESSAGE_STATUS_NAMES[r.status];
}

describe("getMessage status table (spec §13.2)", () => {
  it("NO_MESSAGE_IN_QUEUE when max == 0, with nextBeginOffset 0 whatever the request offset", () => {
    const f = new Fixture();
    for (const offset of [0, 5, 1000]) {
      const r = f.get(offset, 32, f.hot());
      expect(statusName(r)).toBe("NO_MESSAGE_IN_QUEUE");
      expect(r.nextBeginOffset).toBe(0);
      expect(r.count).toBe(0);
    }
  });

  it("OFFSET_TOO_SMALL when offset < min, with nextBeginOffset = min", () => {
    const f = new Fixture().add(20, 100);
    f.store.minOffset = 10;
    const r = f.get(3, 32, f.hot());
    expect(statusName(r)).toBe("OFFSET_TOO_SMALL");
    expect(r.nextBeginOffset).toBe(10);
    expect(r.count).toBe(0);
  });

  it("OFFSET_OVERFLOW_ONE when offset == max, with nextBeginOffset = offset", () => {
    const f = new Fixture().add(20, 100);
    const r = f.get(20, 32, f.hot());
    expect(statusName(r)).toBe("OFFSET_OVERFLOW_ONE");
    expect(r.nextBeginOffset).toBe(20);
  });

  it("OFFSET_OVERFLOW_BADLY when offset > max, with nextBeginOffset = max", () => {
    const f = new Fixture().add(20, 100);
    const r = f.get(25, 32, f.hot());
    expect(statusName(r)).toBe("OFFSET_OVERFLOW_BADLY");
    expect(r.nextBeginOffset).toBe(20);
  });

  it("overflowBadlyToZero (RocketMQ ≤ 4.9.3): next = 0 while min is 0, max once the queue was trimmed (§3.1 row 4)", () => {
    const legacy = { ...BROKER_CONFIG_DEFAULTS, overflowBadlyToZero: true };
    const f = new Fixture().add(20, 100);
    expect(f.get(25, 32, f.hot(legacy)).nextBeginOffset).toBe(0);
    f.store.minOffset = 3;
    const r = f.get(25, 32, f.hot(legacy));
    expect(statusName(r)).toBe("OFFSET_OVERFLOW_BADLY");
    expect(r.nextBeginOffset).toBe(20);
  });

  it("checks max == 0 before offset < min", () => {
    const f = new Fixture();
    f.store.minOffset = 5;
    expect(statusName(f.get(0, 32, f.hot()))).toBe("NO_MESSAGE_IN_QUEUE");
  });

  it("OFFSET_OVERFLOW_ONE rather than OFFSET_TOO_SMALL when retention removed everything (min == max) and offset == max", () => {
    const f = new Fixture().add(10, 100);
    f.store.minOffset = 10;
    expect(statusName(f.get(10, 32, f.hot()))).toBe("OFFSET_OVERFLOW_ONE");
    expect(statusName(f.get(9, 32, f.hot()))).toBe("OFFSET_TOO_SMALL");
  });

  it("FOUND with the messages in offset order and nextBeginOffset after the last one", () => {
    const f = new Fixture().add(5, 100);
    const r = f.get(1, 32, f.hot());
    expect(statusName(r)).toBe("FOUND");
    expect(offsets(r)).toEqual([1, 2, 3, 4]);
    expect(r.nextBeginOffset).toBe(5);
    expect(r.bytes).toBe(4 * (100 + OVERHEAD));
  });

  it("reports the queue's min and max offsets with every status", () => {
    const f = new Fixture().add(20, 100);
    f.store.minOffset = 4;
    for (const offset of [0, 4, 20, 30]) {
      const r = f.get(offset, 32, f.hot());
      expect([r.minOffset, r.maxOffset]).toEqual([4, 20]);
    }
  });

  it("NO_MATCHED_MESSAGE when every scanned unit is filtered out, with nextBeginOffset past them", () => {
    const f = new Fixture().add(50, 100, TAG_B);
    const r = f.get(10, 32, f.hot(), new Set([TAG_A]));
    expect(statusName(r)).toBe("NO_MATCHED_MESSAGE");
    expect(r.count).toBe(0);
    expect(r.nextBeginOffset).toBe(50);
  });

  it("FOUND skips filtered units, and nextBeginOffset counts filtered units after the last accepted one", () => {
    const f = new Fixture().addTags([TAG_A, TAG_B, TAG_B, TAG_A, TAG_B, TAG_B]);
    const r = f.get(0, 32, f.hot(), new Set([TAG_A]));
    expect(statusName(r)).toBe("FOUND");
    expect(offsets(r)).toEqual([0, 3]);
    expect(r.nextBeginOffset).toBe(6);
  });

  it("a unit whose tag is in the set is accepted; any tag passes with no filter", () => {
    const f = new Fixture().addTags([TAG_A, TAG_B, -1]);
    expect(offsets(f.get(0, 32, f.hot(), new Set([TAG_A, TAG_B])))).toEqual([0, 1]);
    expect(offsets(f.get(0, 32, f.hot(), ALL))).toEqual([0, 1, 2]);
  });
});

describe("getMessage scan window (spec §13.2: max(16000, maxMsgNums × 20) bytes of units)", () => {
  it("scans at most 800 units for maxMsgNums ≤ 800", () => {
    const f = new Fixture().add(2000, 10, TAG_B);
    for (const maxMsgNums of [1, 32, 800]) {
      const r = f.get(100, maxMsgNums, f.hot(), new Set([TAG_A]));
      expect(statusName(r)).toBe("NO_MATCHED_MESSAGE");
      expect(r.nextBeginOffset).toBe(900);
    }
  });

  it("scans maxMsgNums units above 800", () => {
    const f = new Fixture().add(2000, 10, TAG_B);
    expect(f.get(0, 801, f.hot(), new Set([TAG_A])).nextBeginOffset).toBe(801);
    expect(f.get(0, 1000, f.hot(), new Set([TAG_A])).nextBeginOffset).toBe(1000);
  });

  it("finds a match in the 800th unit but not in the 801st", () => {
    const last = new Fixture().add(799, 10, TAG_B).add(1, 10, TAG_A).add(10, 10, TAG_B);
    const r1 = last.get(0, 32, last.hot(), new Set([TAG_A]));
    expect(statusName(r1)).toBe("FOUND");
    expect(offsets(r1)).toEqual([799]);
    expect(r1.nextBeginOffset).toBe(800);
    const beyond = new Fixture().add(800, 10, TAG_B).add(1, 10, TAG_A);
    const r2 = beyond.get(0, 32, beyond.hot(), new Set([TAG_A]));
    expect(statusName(r2)).toBe("NO_MATCHED_MESSAGE");
    expect(r2.nextBeginOffset).toBe(800);
  });

  it("stops at max when fewer units than the window are written", () => {
    const f = new Fixture().add(30, 10, TAG_B);
    expect(f.get(0, 32, f.hot(), new Set([TAG_A])).nextBeginOffset).toBe(30);
  });

  it("uses the configured maxFilterMessageSize", () => {
    const f = new Fixture().add(300, 10, TAG_B);
    const config = { ...BROKER_CONFIG_DEFAULTS, maxFilterMessageSize: 2000 };
    expect(f.get(0, 32, f.hot(config), new Set([TAG_A])).nextBeginOffset).toBe(100);
  });

  it("the 4.9 profile scans the same window", () => {
    const f = new Fixture().add(2000, 10, TAG_B);
    expect(f.get(0, 32, f.hot(BROKER_CONFIG_DEFAULTS, "4.9"), new Set([TAG_A])).nextBeginOffset).toBe(800);
  });
});

describe("getMessage batch-full rules (spec §13.2 isTheBatchFull)", () => {
  it("hot: at most 32 messages whatever maxMsgNums asks", () => {
    const f = new Fixture().add(100, 100);
    const r = f.get(0, 64, f.hot());
    expect(r.count).toBe(32);
    expect(r.nextBeginOffset).toBe(32);
  });

  it("hot: at most 256 KiB of stored messages, the limit itself included", () => {
    const exact = new Fixture().addStored(40, 8 * KiB); // 32 × 8 KiB = 256 KiB exactly
    expect(exact.get(0, 64, exact.hot()).count).toBe(32);
    const over = new Fixture().addStored(40, 8 * KiB + 1);
    expect(over.get(0, 64, over.hot()).count).toBe(31);
    // 8 KiB bodies are a little over 8 KiB stored: 31 fit, as RocketMQ returns.
    const bodies = new Fixture().add(40, 8 * KiB);
    expect(bodies.get(0, 64, bodies.hot()).count).toBe(31);
    const tenK = new Fixture().addStored(40, 10 * KiB); // 25 × 10 KiB = 250 KiB; a 26th would pass 256 KiB
    expect(tenK.get(0, 64, tenK.hot()).count).toBe(25);
  });

  it("cold: at most 8 messages", () => {
    const f = new Fixture().add(100, 100);
    const r = f.get(0, 32, f.cold());
    expect(r.count).toBe(8);
    expect(r.nextBeginOffset).toBe(8);
  });

  it("cold: at most 64 KiB of stored messages, the limit itself included", () => {
    const exact = new Fixture().addStored(20, 8 * KiB); // 8 × 8 KiB = 64 KiB exactly
    expect(exact.get(0, 32, exact.cold()).count).toBe(8);
    const f = new Fixture().addStored(20, 10_000); // 6 × 10000 = 60000; a 7th would pass 65536
    expect(f.get(0, 32, f.cold()).count).toBe(6);
  });

  it("always returns at least one message, even one larger than the byte cap", () => {
    const cold = new Fixture().add(3, MiB);
    expect(offsets(cold.get(0, 32, cold.cold()))).toEqual([0]);
    const hot = new Fixture().add(3, 300 * KiB);
    const r = hot.get(1, 32, hot.hot());
    expect(offsets(r)).toEqual([1]);
    expect(r.nextBeginOffset).toBe(2);
  });

  it("returns at most maxMsgNums messages", () => {
    const f = new Fixture().add(100, 100);
    expect(f.get(0, 1, f.hot()).count).toBe(1);
    expect(f.get(0, 5, f.cold()).count).toBe(5);
  });

  it("does not consume the unit that made the batch full, even after filtered units", () => {
    const f = new Fixture().addTags([TAG_A, TAG_B, TAG_A, TAG_A]);
    const r = f.get(0, 2, f.hot(), new Set([TAG_A]));
    expect(offsets(r)).toEqual([0, 2]);
    expect(r.nextBeginOffset).toBe(3);
  });

  it("filtered units do not count towards the message or byte caps", () => {
    const f = new Fixture();
    for (let i = 0; i < 20; i++) f.add(1, 10_000, TAG_B).add(1, 100, TAG_A);
    const r = f.get(0, 32, f.cold(), new Set([TAG_A]));
    expect(r.count).toBe(8);
    expect(r.bytes).toBe(8 * (100 + OVERHEAD));
  });

  // The test reads a unit's page position: the position of the first unit of its block of 256 (QueueStore
  // PAGE_BITS), so a block is in memory or on disk as a whole.
  it("decides hot or cold per block of 256 units: a pull starting on disk continues with in-memory limits", () => {
    // 600 units of 1000 B; block 1 (units 256–511) starts at position 256 000 (this fixture records the
    // position before each unit). hotBytes = tail − 256 000: block 0 on disk, blocks 1 and 2 in memory.
    const f = new Fixture().add(600, 1000);
    const ctx: GetMessageContext = { config: BROKER_CONFIG_DEFAULTS, hotBytes: f.tail - 256_000, commitLogTail: f.tail, profile: "5.x", maxCap: Infinity };
    expect(f.get(250, 32, ctx).count).toBe(32); // 6 units on disk (< 8), then in-memory limits
    expect(f.get(240, 32, ctx).count).toBe(8); // 16 units on disk in front: the disk limit of 8 ends it
    expect(f.get(300, 32, ctx).count).toBe(32);
  });

  it("counts a block whose first unit is exactly hotBytes from the tail as in memory, one byte further as on disk", () => {
    const f = new Fixture().add(600, 1000);
    const ctx = (hotBytes: number): GetMessageContext => ({ config: BROKER_CONFIG_DEFAULTS, hotBytes, commitLogTail: f.tail, profile: "5.x", maxCap: Infinity });
    const fromBlock1 = f.tail - 256_000;
    expect(f.get(250, 32, ctx(fromBlock1)).count).toBe(32);
    expect(f.get(250, 32, ctx(fromBlock1 - 1)).count).toBe(8);
    // Units 500–511 are ≤ 100 000 B from the tail themselves, but their block starts 344 000 B away:
    // with hotBytes 100 000 they count as on disk, so a pull from 500 stops at 8.
    expect(f.get(500, 32, ctx(100_000)).count).toBe(8);
  });

  it("checks the batch before the filter, so a unit that would be filtered out can still end the batch", () => {
    const f = new Fixture().add(2, 30_000, TAG_A).add(1, 10_000, TAG_B).add(1, 100, TAG_A);
    const r = f.get(0, 32, f.cold(), new Set([TAG_A]));
    expect(offsets(r)).toEqual([0, 1]);
    expect(r.nextBeginOffset).toBe(2);
  });

  it("uses the configured transfer limits", () => {
    const f = new Fixture().add(100, 100);
    const config = { ...BROKER_CONFIG_DEFAULTS, maxTransferCountOnMessageInMemory: 4, maxTransferCountOnMessageInDisk: 2 };
    expect(f.get(0, 32, f.hot(config)).count).toBe(4);
    expect(f.get(0, 32, f.cold(config)).count).toBe(2);
  });

  it("5.x caps a result at 128 MiB (MAX_PULL_MSG_SIZE); 4.9 has no such cap", () => {
    const f = new Fixture().addStored(4, 64 * MiB);
    const config = { ...BROKER_CONFIG_DEFAULTS, maxTransferBytesOnMessageInMemory: 2 ** 31 - 1, maxTransferCountOnMessageInMemory: 1000 };
    expect(f.get(0, 3, f.hot(config, "5.x")).count).toBe(2);
    expect(f.get(0, 3, f.hot(config, "4.9")).count).toBe(3);
  });

  it("the 4.9 profile applies the same count and byte limits", () => {
    const f = new Fixture().add(100, 100);
    expect(f.get(0, 64, f.hot(BROKER_CONFIG_DEFAULTS, "4.9")).count).toBe(32);
    expect(f.get(0, 64, f.cold(BROKER_CONFIG_DEFAULTS, "4.9")).count).toBe(8);
    expect(f.get(0, 5, f.hot(BROKER_CONFIG_DEFAULTS, "4.9")).count).toBe(5);
  });
});

describe("getMessage acceptance cases of DefaultMessageStoreTest (spec §15.6)", () => {
  it("testPullSize: 32 small messages; maxMsgNums 32 → 32, 20 → 20, 10 → 10", () => {
    const f = new Fixture().add(32, 64);
    expect(f.get(0, 32, f.hot()).count).toBe(32);
    expect(f.get(0, 20, f.hot()).count).toBe(20);
    expect(f.get(0, 10, f.hot()).count).toBe(10);
  });

  it("testWriteAndRead: 20 messages are readable one by one at offsets 0–19", () => {
    const f = new Fixture().add(20, 64);
    for (let o = 0; o < 20; o++) {
      const r = f.get(o, 1, f.hot());
      expect(statusName(r)).toBe("FOUND");
      expect(offsets(r)).toEqual([o]);
      expect(r.nextBeginOffset).toBe(o + 1);
    }
  });
});

describe("getMessage result reuse", () => {
  it("resets count and bytes on every call so one result object can serve many pulls", () => {
    const f = new Fixture().add(10, 100);
    const out = new GetMessageResult();
    getMessage(f.store, 0, 32, ALL, f.hot(), out);
    expect(out.count).toBe(10);
    getMessage(f.store, 10, 32, ALL, f.hot(), out);
    expect(statusName(out)).toBe("OFFSET_OVERFLOW_ONE");
    expect(out.count).toBe(0);
    expect(out.bytes).toBe(0);
  });

  it("never writes past the capacity of the result buffer", () => {
    const f = new Fixture().add(10, 100);
    const out = getMessage(f.store, 0, 32, ALL, f.hot(), new GetMessageResult(4));
    expect(offsets(out)).toEqual([0, 1, 2, 3]);
    expect(out.nextBeginOffset).toBe(4);
  });
});

describe("responseCodeOf (spec §13.3)", () => {
  it("FOUND → SUCCESS", () => {
    expect(responseCodeOf(GetMessageStatus.FOUND, 5)).toBe(ResponseCode.SUCCESS);
  });

  it("NO_MATCHED_MESSAGE and MESSAGE_WAS_REMOVING → PULL_RETRY_IMMEDIATELY", () => {
    expect(responseCodeOf(GetMessageStatus.NO_MATCHED_MESSAGE, 5)).toBe(ResponseCode.PULL_RETRY_IMMEDIATELY);
    expect(responseCodeOf(GetMessageStatus.MESSAGE_WAS_REMOVING, 5)).toBe(ResponseCode.PULL_RETRY_IMMEDIATELY);
  });

  it("NO_MESSAGE_IN_QUEUE and NO_MATCHED_LOGIC_QUEUE → PULL_NOT_FOUND for request offset 0, else PULL_OFFSET_MOVED", () => {
    for (const status of [GetMessageStatus.NO_MESSAGE_IN_QUEUE, GetMessageStatus.NO_MATCHED_LOGIC_QUEUE]) {
      expect(responseCodeOf(status, 0)).toBe(ResponseCode.PULL_NOT_FOUND);
      expect(responseCodeOf(status, 456)).toBe(ResponseCode.PULL_OFFSET_MOVED); // PullMessageProcessorTest, §15.6
      expect(responseCodeOf(status, 1)).toBe(ResponseCode.PULL_OFFSET_MOVED);
    }
  });

  it("OFFSET_OVERFLOW_ONE and OFFSET_FOUND_NULL → PULL_NOT_FOUND (the request may be held for long polling)", () => {
    expect(responseCodeOf(GetMessageStatus.OFFSET_OVERFLOW_ONE, 7)).toBe(ResponseCode.PULL_NOT_FOUND);
    expect(responseCodeOf(GetMessageStatus.OFFSET_FOUND_NULL, 7)).toBe(ResponseCode.PULL_NOT_FOUND);
  });

  it("OFFSET_OVERFLOW_BADLY and OFFSET_TOO_SMALL → PULL_OFFSET_MOVED, even for request offset 0", () => {
    for (const offset of [0, 7]) {
      expect(responseCodeOf(GetMessageStatus.OFFSET_OVERFLOW_BADLY, offset)).toBe(ResponseCode.PULL_OFFSET_MOVED);
      expect(responseCodeOf(GetMessageStatus.OFFSET_TOO_SMALL, offset)).toBe(ResponseCode.PULL_OFFSET_MOVED);
    }
  });

  it("answers for every status there is, with the codes of §4.1", () => {
    expect(GET_MESSAGE_STATUS_NAMES).toHaveLength(9);
    for (let s = 0; s < GET_MESSAGE_STATUS_NAMES.length; s++) {
      expect([0, 19, 20, 21]).toContain(responseCodeOf(s as GetMessageStatus, 3));
    }
    expect([ResponseCode.SUCCESS, ResponseCode.PULL_NOT_FOUND, ResponseCode.PULL_RETRY_IMMEDIATELY, ResponseCode.PULL_OFFSET_MOVED]).toEqual([0, 19, 20, 21]);
  });
});
