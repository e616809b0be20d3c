// An expectation's clauses as data (threshold, actual, when, where) against a hand-built series, so
// every figure below is read off the table in the comment, not off the program.
import { describe, expect, it } from "vitest";
import { evaluateExpectation, numericPaths } from "./expect.ts";
import type { DetailSeries } from "./expectDetail.ts";
import { parseExpectation } from "./expectParser.ts";
import { SERIES_COLUMNS, type SeriesColumn } from "./vocabulary.ts";
import { describeClause } from "../checks/failureDetail.ts";

// Samples at 1 s … 5 s.
//   t (s)                 1    2    3    4    5
//   lag.committed        10   70   30   70   20      max 70, first at 2 s; min 10 at 1 s
//   cache.countPerQ…Max   5   40   60   20   10      = the largest of the queues below
//     queue q0            5   10   60   20   10
//     queue q1            5   40   10   20    0      (ties go to the first queue: q0 at 1 s and 4 s)
//   cache.bytesPerCons…  100  300  200  100  100
//     instance c1        100  100  200  100  100
//     instance c2        100  300  100    0    0
const COLUMNS = {} as Record<SeriesColumn, number[]>;
for (const c of SERIES_COLUMNS) COLUMNS[c] = [0, 0, 0, 0, 0];
COLUMNS.tSec = [1, 2, 3, 4, 5];
COLUMNS.lagCommitted = [10, 70, 30, 70, 20];
COLUMNS.cachedPerQueueMax = [5, 40, 60, 20, 10];
COLUMNS.cachedBytesPerConsumerMax = [100, 300, 200, 100, 100];
const SERIES: DetailSeries = {
  columns: COLUMNS,
  perQueue: [
    { label: "T@b#0", cached: [5, 10, 60, 20, 10] },
    { label: "T@b#1", cached: [5, 40, 10, 20, 0] },
  ],
  perConsumer: [
    { clientId: "c1", cachedBytes: [100, 100, 200, 100, 100], poolBusy: [0, 0, 0, 0, 0] },
    { clientId: "c2", cachedBytes: [100, 300, 100, 0, 0], poolBusy: [0, 0, 0, 0, 0] },
  ],
};
const SUMMARY = { messages: { lost: 3 }, lag: { committed: { max: 70 } } };
const NAMES = { summaryPaths: numericPaths(SUMMARY) };

function clauses(src: string) {
  return evaluateExpectation(parseExpectation(src, NAMES), { summary: SUMMARY, series: SERIES }).clauses!;
}

describe("clause detail", () => {
  it("max: threshold, actual, the first peak's time, the window and the worst queue there", () => {
    // max(cache.countPerQueueMax) = 60 at 3 s, where q0 holds 60.
    expect(clauses("max(cache.countPerQueueMax) < 50")).toEqual([{
      text: "max(cache.countPerQueueMax) < 50", ok: false, op: "<", unit: null, threshold: 50, actual: 60,
      series: "cache.countPerQueueMax", atUs: 3_000_000, windowUs: [0, 5_000_000], where: "queue T@b#0, 60 cached",
    }]);
  });

  it("a window limits the search; an open end closes at the last sample", () => {
    // 3 s..: lag 30 70 20 → max 70 at 4 s (the peak at 2 s lies outside).
    expect(clauses("max(lag.committed, 3s..) < 50")[0]).toMatchObject({ actual: 70, atUs: 4_000_000, windowUs: [3_000_000, 5_000_000], where: null });
    // min over ..2s: 10 at 1 s.
    expect(clauses("min(lag.committed, ..2s) > 20")[0]).toMatchObject({ actual: 10, atUs: 1_000_000, windowUs: [0, 2_000_000] });
  });

  it("mean and sum have a window but no deciding sample", () => {
    // mean 10 70 30 70 20 = 40.
    expect(clauses("mean(lag.committed) < 30")[0]).toMatchObject({ actual: 40, threshold: 30, atUs: null, windowUs: [0, 5_000_000] });
  });

  it("at reads the sample at or before its time and names the worst instance there", () => {
    // at(cache.bytesPerConsumerMax, 2.5s) is the 2 s sample: 300 bytes, instance c2.
    expect(clauses("at(cache.bytesPerConsumerMax, 2.5s) < 200")[0]).toMatchObject({
      actual: 300, atUs: 2_000_000, windowUs: null, where: "instance c2, 300 bytes cached",
    });
  });

  it("first is a time in ms; never gives the first sample where its condition held", () => {
    // first(lag.committed > 50) = 2 s; never(cache.countPerQueueMax > 30) first breaks at 2 s with 40, in q1.
    expect(clauses("first(lag.committed > 50) > 3s")[0]).toMatchObject({ unit: "ms", actual: 2000, threshold: 3000, atUs: 2_000_000, series: "lag.committed" });
    expect(clauses("never(cache.countPerQueueMax > 30)")[0]).toMatchObject({
      ok: false, op: ">", threshold: 30, actual: 40, atUs: 2_000_000, where: "queue T@b#1, 40 cached",
    });
    expect(clauses("never(lag.committed > 100)")[0]).toMatchObject({ ok: true, actual: null, atUs: null });
  });

  it("reads a threshold written first the other way round, and each clause of an 'and'", () => {
    // 50 > max(lag) is max(lag) < 50; messages.lost == 0 fails with 3.
    const [a, b] = clauses("50 > max(lag.committed) and messages.lost == 0");
    expect(a).toMatchObject({ op: "<", threshold: 50, actual: 70, ok: false });
    expect(b).toMatchObject({ op: "==", threshold: 0, actual: 3, series: null, atUs: null, windowUs: null, where: null });
  });

  it("a figure without a value is null, never NaN (JSON has no NaN)", () => {
    const [c] = clauses("max(lag.committed, 9s..) < 5");
    expect([c!.actual, c!.ok, c!.atUs]).toEqual([null, false, null]);
  });
});

describe("describeClause", () => {
  it("says by how much, when and where", () => {
    // 60 against < 50: over by 10.
    expect(describeClause(clauses("max(cache.countPerQueueMax) < 50")[0]!)).toBe(
      "max(cache.countPerQueueMax) < 50: actual 60, threshold < 50 (over by 10), at 3s, window 0s..5s, queue T@b#0, 60 cached",
    );
    // first at 2 s against > 3 s: under by 1 s.
    expect(describeClause(clauses("first(lag.committed > 50) > 3s")[0]!)).toBe(
      "first(lag.committed > 50) > 3s: actual 2s, threshold > 3s (under by 1s), at 2s, window 0s..5s",
    );
  });
});
