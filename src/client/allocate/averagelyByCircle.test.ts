import { describe, expect, it } from "vitest";
import { allocateAveragelyByCircle } from "./averagelyByCircle.ts";
import { AllocateError } from "./check.ts";

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

describe("allocateAveragelyByCircle acceptance case of AllocateMessageQueueAveragelyByCircleTest (spec §15.1)", () => {
  it("10 queues, 4 consumers → CID_PREFIX0 {0,4,8}, CID_PREFIX1 {1,5,9}, CID_PREFIX2 {2,6}, CID_PREFIX3 {3,7}", () => {
    const mqAll = queues(10);
    const cidAll = consumers(4);
    expect(cidAll.map((cid) => ids(allocateAveragelyByCircle(cid, mqAll, cidAll)))).toEqual([
      [0, 4, 8],
      [1, 5, 9],
      [2, 6],
      [3, 7],
    ]);
  });

  it('gives "CID_PREFIX", which is not in the list, nothing', () => {
    expect(allocateAveragelyByCircle("CID_PREFIX", queues(10), consumers(4))).toEqual([]);
  });
});

describe("allocateAveragelyByCircle examples (spec §11.2)", () => {
  it("more consumers than queues leaves the consumers past the last queue idle", () => {
    const cidAll = consumers(5);
    expect(cidAll.map((cid) => ids(allocateAveragelyByCircle(cid, queues(3), cidAll)))).toEqual([[0], [1], [2], [], []]);
  });

  it("returns the caller's queue objects themselves, in mqAll order", () => {
    const mqAll = [{ q: 0 }, { q: 1 }, { q: 2 }];
    const got = allocateAveragelyByCircle("a", mqAll, ["a", "b"]);
    expect(got).toHaveLength(2);
    expect(got[0]).toBe(mqAll[0]);
    expect(got[1]).toBe(mqAll[2]);
  });
});

describe("allocateAveragelyByCircle bad inputs (spec §11 precheck)", () => {
  it("throws the common AllocateError messages, checking currentCID, then mqAll, then cidAll", () => {
    expect(() => allocateAveragelyByCircle("", queues(2), consumers(2))).toThrow(AllocateError);
    expect(() => allocateAveragelyByCircle("", [], [])).toThrow("currentCID is empty");
    expect(() => allocateAveragelyByCircle("CID_PREFIX0", [], [])).toThrow("mqAll is null or mqAll empty");
    expect(() => allocateAveragelyByCircle("CID_PREFIX0", queues(2), [])).toThrow("cidAll is null or cidAll empty");
  });
});

describe("allocateAveragelyByCircle properties over M, N in 1…40 (spec §11.2)", () => {
  it("allocates every queue exactly once, consumer i getting exactly the k ≡ i (mod N), sizes differing by at most 1", () => {
    for (let m = 1; m <= 40; m++) {
      for (let n = 1; n <= 40; n++) {
        const mqAll = queues(m);
        const cidAll = consumers(n);
        const label = `M=${m} N=${n}`;
        const owned = cidAll.map((cid) => ids(allocateAveragelyByCircle(cid, mqAll, cidAll)));
        expect(owned.flat().sort((a, b) => a - b), label).toEqual(Array.from({ length: m }, (_, k) => k));
        expect(owned.every((ks, i) => ks.every((k) => k % n === i)), label).toBe(true);
        const sizes = owned.map((ks) => ks.length);
        expect(Math.max(...sizes) - Math.min(...sizes), label).toBeLessThanOrEqual(1);
      }
    }
  });
});
