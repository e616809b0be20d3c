import { describe, expect, it } from "vitest";
import type { Cluster } from "../model/Cluster.ts";
import { Trace } from "../sim/Trace.ts";
import { explainFilter, THIN_US } from "./capture.ts";

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

  it("keeps the first FOUND answer per queue and instance in each bucket, and offsets sampled per bucket, released and fixed", () => {
    const { trace, T, emit } = setup();
    emit(T.pullResult, 10, 1, 0, 0, 32);
    emit(T.pullResult, 20, 1, 0, 0, 64); // same bucket: dropped
    emit(T.pullResult, 30, 1, 1, 0, 64); // another instance: kept
    emit(T.pullResult, THIN_US + 1, 1, 0, 0, 96);
    emit(T.offsetUpdate, 40, 1, 0, 7, 1); // first: a sample
    emit(T.offsetUpdate, 50, 1, 0, 7, 1); // repeat in the same bucket: dropped
    emit(T.offsetUpdate, 60, 1, 0, 9, 1); // released after a repeat: kept
    emit(T.offsetUpdate, 70, 1, 0, 11, 1); // same bucket, moving: dropped
    emit(T.offsetUpdate, 80, 1, 0, 500, 0); // a fix: kept
    emit(T.offsetUpdate, THIN_US + 5, 1, 0, 512, 1); // next bucket: a sample
    const kept = trace.captured.map((r) => `${r.type}@${r.tUs}`);
    // In emission order (the test emits the two kinds in separate passes over the same times).
    expect(kept).toEqual([
      "pullResult@10", "pullResult@30", `pullResult@${THIN_US + 1}`,
      "offsetUpdate@40", "offsetUpdate@60", "offsetUpdate@80", `offsetUpdate@${THIN_US + 5}`,
    ]);
  });
});
