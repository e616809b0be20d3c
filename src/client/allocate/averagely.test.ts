import { describe, expect, it } from "vitest";
import { allocateAveragely } from "./averagely.ts";
import { AllocateError, checkAllocateInputs } from "./check.ts";

/** Queues as RocketMQ's tests build them: topic "topic", broker "brokerName", ids 0…m−1, already sorted. */
function queues(m: number): string[] {
  return Array.from({ length: m }, (_, i) => `topic@brokerName#${i}`);
}
function consumers(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `CID_PREFIX${i}`);
}
function ids(mqs: string[]): number[] {
  return mqs.map((q) => Number(q.slice(q.indexOf("#") + 1)));
}

describe("allocateAveragely acceptance case of AllocateMessageQueueAveragelyTest (spec §15.1)", () => {
  it("10 queues, 4 consumers CID_PREFIX0…3 → sizes [3, 3, 2, 2] in consumer order, as contiguous blocks", () => {
    const mqAll = queues(10);
    const cidAll = consumers(4);
    const result = cidAll.map((cid) => ids(allocateAveragely(cid, mqAll, cidAll)));
    expect(result.map((r) => r.length)).toEqual([3, 3, 2, 2]);
    expect(result).toEqual([[0, 1, 2], [3, 4, 5], [6, 7], [8, 9]]);
  });
});

describe("allocateAveragely examples (spec §11.1)", () => {
  it("M=3, N=5 → one queue each for the first three, nothing for the last two", () => {
    const mqAll = queues(3);
    const cidAll = consumers(5);
    expect(cidAll.map((cid) => ids(allocateAveragely(cid, mqAll, cidAll)))).toEqual([[0], [1], [2], [], []]);
  });

  it("M=8, N=3 → {0,1,2} {3,4,5} {6,7}", () => {
    const mqAll = queues(8);
    const cidAll = consumers(3);
    expect(cidAll.map((cid) => ids(allocateAveragely(cid, mqAll, cidAll)))).toEqual([[0, 1, 2], [3, 4, 5], [6, 7]]);
  });

  it("4 queues among 7 consumers leave the last 3 idle", () => {
    const mqAll = queues(4);
    const cidAll = consumers(7);
    const result = cidAll.map((cid) => ids(allocateAveragely(cid, mqAll, cidAll)));
    expect(result).toEqual([[0], [1], [2], [3], [], [], []]);
  });

  it("one consumer gets every queue in order", () => {
    expect(allocateAveragely("c", queues(5), ["c"])).toEqual(queues(5));
  });

  it("gives the single retry queue of a broker to the consumer at index 0 (spec §9.3, §16 note 8)", () => {
    const cidAll = consumers(3);
    expect(cidAll.map((cid) => allocateAveragely(cid, ["%RETRY%G@b#0"], cidAll).length)).toEqual([1, 0, 0]);
  });

  it("returns the caller's queue objects themselves, not copies", () => {
    const mqAll = [{ q: 0 }, { q: 1 }];
    const got = allocateAveragely("a", mqAll, ["a", "b"]);
    expect(got[0]).toBe(mqAll[0]);
  });
});

describe("allocateAveragely for a consumer not in the list (spec §11 precheck)", () => {
  it("returns an empty allocation, not an error", () => {
    expect(allocateAveragely("CID_PREFIX", queues(10), consumers(4))).toEqual([]);
  });
});

describe("allocateAveragely bad inputs (spec §11, AbstractAllocateMessageQueueStrategy#check)", () => {
  it('throws AllocateError "currentCID is empty" for an empty currentCID', () => {
    expect(() => allocateAveragely("", queues(2), consumers(2))).toThrow(AllocateError);
    expect(() => allocateAveragely("", queues(2), consumers(2))).toThrow("currentCID is empty");
  });

  it('throws AllocateError "mqAll is null or mqAll empty" for no queues', () => {
    expect(() => allocateAveragely("CID_PREFIX0", [], consumers(2))).toThrow(AllocateError);
    expect(() => allocateAveragely("CID_PREFIX0", [], consumers(2))).toThrow("mqAll is null or mqAll empty");
    expect(() => checkAllocateInputs("CID_PREFIX0", null, consumers(2))).toThrow("mqAll is null or mqAll empty");
  });

  it('throws AllocateError "cidAll is null or cidAll empty" for no consumers', () => {
    expect(() => allocateAveragely("CID_PREFIX0", queues(2), [])).toThrow(AllocateError);
    expect(() => allocateAveragely("CID_PREFIX0", queues(2), [])).toThrow("cidAll is null or cidAll empty");
    expect(() => checkAllocateInputs("CID_PREFIX0", queues(2), null)).toThrow("cidAll is null or cidAll empty");
  });

  it("checks currentCID first, then mqAll, then cidAll", () => {
    expect(() => checkAllocateInputs("", [], [])).toThrow("currentCID is empty");
    expect(() => checkAllocateInputs("x", [], [])).toThrow("mqAll is null or mqAll empty");
  });

  it("throws for bad lists even when currentCID is not a member", () => {
    expect(() => allocateAveragely("stranger", [], consumers(2))).toThrow(AllocateError);
  });

  it("check answers whether currentCID is in cidAll", () => {
    expect(checkAllocateInputs("b", queues(1), ["a", "b"])).toBe(true);
    expect(checkAllocateInputs("c", queues(1), ["a", "b"])).toBe(false);
  });
});

describe("allocateAveragely properties over M, N in 1…40 (spec §11.1)", () => {
  it("allocates every queue exactly once, in contiguous blocks in consumer order, sizes differing by at most 1 with larger blocks first", () => {
    for (let m = 1; m <= 40; m++) {
      for (let n = 1; n <= 40; n++) {
        const mqAll = queues(m);
        const cidAll = consumers(n);
        const blocks = cidAll.map((cid) => ids(allocateAveragely(cid, mqAll, cidAll)));
        const label = `M=${m} N=${n}`;
        // Concatenated in consumer order they are exactly 0…m−1: each queue once, blocks contiguous.
        expect(blocks.flat(), label).toEqual(Array.from({ length: m }, (_, i) => i));
        const sizes = blocks.map((b) => b.length);
        expect(Math.max(...sizes) - Math.min(...sizes), label).toBeLessThanOrEqual(1);
        expect([...sizes].sort((a, b) => b - a), label).toEqual(sizes);
        if (m >= n) expect(Math.min(...sizes), label).toBe(Math.floor(m / n));
        else expect(sizes.filter((s) => s === 0).length, label).toBe(n - m);
      }
    }
  });
});
