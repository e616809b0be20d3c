import { describe, expect, it } from "vitest";
import type { Cluster } from "../model/Cluster.ts";
import { Trace } from "../sim/Trace.ts";
import { explainCapture, explainFilter, THIN_US } from "./capture.ts";

/** A trace with the client's and the faults' record types, and a clock the test moves. */
function setup() {
  const trace = new Trace();
  const T = {
    pullResult: trace.defineType("pullResult", ["mq", "consumer", "code", "nextBeginOffset"]),
    offsetUpdate: trace.defineType("offsetUpdate", ["mq", "consumer", "offset", "increaseOnly"]),
    consumeStart: trace.defineType("consumeStart", ["mq", "offset", "consumer", "worker"]),
    pullLater: trace.defineType("pullLater", ["mq", "consumer", "delayMs", "reason"]),
    fault: trace.defineType("fault", ["index", "phase"]),
  };
  const sched = { nowUs: 0 };
  trace.setCapture(explainFilter({ trace, sched } as unknown as Cluster, new Set([1])));
  const emit = (type: number, tUs: number, ...f: number[]) => {
    sched.nowUs = tUs;
    trace.emit(type, tUs, ...f);
  };
  return { trace, T, emit };
}

describe("explainFilter", () => {
  it("keeps the queue's records and the global ones, and defines no record type (codes and hash unchanged)", () => {
    const { trace, T, emit } = setup();
    emit(T.consumeStart, 1, 1, 10, 0, 0);
    emit(T.pullResult, 2, 2, 0, 19, 5); // another queue
    emit(T.pullResult, 3, 1, 0, 21, 500); // OFFSET_ILLEGAL
    emit(T.fault, 4, 0, 0);
    emit(T.pullLater, 5, 1, 0, 50, 6); // pullInterval: normal
    emit(T.pullLater, 6, 1, 0, 1000, 2); // paused
    expect(trace.captured.map((r) => `${r.type}@${r.tUs}`)).toEqual(["pullResult@3", "fault@4", "pullLater@6"]);
    expect(trace.typeName(T.fault + 1)).toBe(`type#${T.fault + 1}`);
  });

  it("keeps the first FOUND answer per queue and instance in each bucket, and offsets sampled per bucket, released after holding across a bucket, and fixed", () => {
    const { trace, T, emit } = setup();
    emit(T.pullResult, 10, 1, 0, 0, 32);
    emit(T.pullResult, 20, 1, 0, 0, 64); // same bucket: dropped
    emit(T.pullResult, 30, 1, 1, 0, 64); // another instance: kept
    emit(T.pullResult, THIN_US + 1, 1, 0, 0, 96);
    emit(T.offsetUpdate, 40, 1, 0, 7, 1); // first: a sample
    emit(T.offsetUpdate, 50, 1, 0, 7, 1); // repeat in the same bucket: dropped
    emit(T.offsetUpdate, 60, 1, 0, 9, 1); // moved, 7 held only within this bucket (churn): dropped
    emit(T.offsetUpdate, 70, 1, 0, 11, 1); // same bucket, moving: dropped
    emit(T.offsetUpdate, 80, 1, 0, 500, 0); // a fix: kept
    emit(T.offsetUpdate, THIN_US + 5, 1, 0, 512, 1); // next bucket: a sample
    emit(T.offsetUpdate, THIN_US + 6, 1, 0, 512, 1); // repeat: dropped
    emit(T.offsetUpdate, 2 * THIN_US + 7, 1, 0, 512, 1); // still 512, a new bucket: a sample
    emit(T.offsetUpdate, 2 * THIN_US + 8, 1, 0, 513, 1); // 512 held since bucket 1, moves in bucket 2: released, kept
    emit(T.offsetUpdate, 2 * THIN_US + 9, 1, 0, 514, 1); // 513 began in this bucket: dropped
    const kept = trace.captured.map((r) => `${r.type}@${r.tUs}`);
    // In emission order (the test emits the two kinds in separate passes over the same times).
    expect(kept).toEqual([
      "pullResult@10", "pullResult@30", `pullResult@${THIN_US + 1}`,
      "offsetUpdate@40", "offsetUpdate@80", `offsetUpdate@${THIN_US + 5}`, `offsetUpdate@${2 * THIN_US + 7}`, `offsetUpdate@${2 * THIN_US + 8}`,
    ]);
  });
});

describe("explainCapture: the aggregate", () => {
  /** A trace with the record types the aggregate reads, a clock the test moves, and the capture installed. */
  function aggregateSetup() {
    const trace = new Trace();
    const T = {
      pqCreated: trace.defineType("pqCreated", ["mq", "consumer", "nextOffset"]),
      pullResult: trace.defineType("pullResult", ["mq", "consumer", "code", "nextBeginOffset"]),
      consumeStart: trace.defineType("consumeStart", ["mq", "offset", "consumer", "worker"]),
      consumeEnd: trace.defineType("consumeEnd", ["mq", "offset", "consumer", "ok"]),
    };
    const sched = { nowUs: 0 };
    const capture = explainCapture({ trace, sched } as unknown as Cluster, new Set([1]));
    trace.setCapture(capture.filter);
    const emit = (type: number, tUs: number, ...f: number[]) => {
      sched.nowUs = tUs;
      trace.emit(type, tUs, ...f);
    };
    return { trace, T, emit, aggregate: capture.aggregate };
  }

  it("counts threads busy from consumeStart to consumeEnd and each message's wait since its FOUND pull arrived, keeping none of them", () => {
    const { trace, T, emit, aggregate } = aggregateSetup();
    emit(T.pqCreated, 0, 1, 0, 100);
    emit(T.pullResult, 0, 1, 0, 0, 104); // offsets 100–103 arrive at 0
    emit(T.consumeStart, 0, 1, 100, 0, 0); // worker 0: waited 0
    emit(T.consumeStart, 0, 1, 101, 0, 1); // worker 1: waited 0
    emit(T.consumeEnd, 50_000, 1, 100, 0, 1);
    emit(T.consumeStart, 50_000, 1, 102, 0, 0); // waited 50 ms
    emit(T.consumeEnd, 100_000, 1, 101, 0, 1);
    emit(T.consumeEnd, 100_000, 1, 102, 0, 1);
    emit(T.consumeStart, 150_000, 1, 103, 0, 1); // waited 150 ms, alone until 200 ms
    emit(T.consumeEnd, 200_000, 1, 103, 0, 1);
    expect(trace.captured.map((r) => r.type)).toEqual(["pqCreated", "pullResult"]);
    const pool = aggregate.pool(0)!;
    // Bucket 0 (0–100 ms): 2 threads busy all along. Bucket 1 (100–200 ms): 1 thread for 50 ms.
    expect(pool.stats(0, THIN_US)).toEqual({ busyMean: 2, busyMax: 2, started: 3, waitMeanUs: 50_000 / 3, waitMaxUs: 50_000 });
    pool.advance(2 * THIN_US);
    expect(pool.stats(THIN_US, 2 * THIN_US)).toEqual({ busyMean: 0.5, busyMax: 1, started: 1, waitMeanUs: 150_000, waitMaxUs: 150_000 });
    // Saturated (every thread busy) only in the first bucket, for a pool of 2.
    expect(pool.saturatedRuns(2)).toEqual([[0, THIN_US]]);
  });
});
