// The streaming explainer against the captured path it replaced: fed record by record while the run
// goes, holding no record, it must derive exactly what `derive` derives from the same records captured
// into an array — and change nothing in the run (trace hash, summary).
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { Routes } from "../protocol/routes.ts";
import { simulate } from "../run/simulate.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import type { Model } from "../scenario/types.ts";
import { explainCapture, type ExplainCapture } from "./capture.ts";
import { derive } from "./derive.ts";
import { explain, explainAlongside } from "./explain.ts";
import { ExplainStream } from "./stream.ts";

const SCENARIOS = join(dirname(fileURLToPath(import.meta.url)), "../../scenarios");
const S = 1_000_000;

function scenario(name: string, durationUs: number): Model {
  return { ...normalizeScenario(JSON.parse(readFileSync(join(SCENARIOS, `${name}.json`), "utf8"))), durationUs };
}

/** Every queue of the model (global indexes); the Deriver keeps those a group consumes. */
function allQueues(model: Model): number[] {
  return new Routes(model).queues.map((q) => q.index);
}

describe("ExplainStream", () => {
  for (const [name, seconds] of [["count-flow-control", 20], ["consumer-crash", 200], ["broker-crash", 90]] as const) {
    it(`${name}: the stream derives the same intervals and pull log as derive() over the captured records, holding none`, () => {
      const model = scenario(name, seconds * S);
      const mqs = allQueues(model);
      let capture: ExplainCapture | null = null;
      const captured = simulate(model, { captureTrace: (cl) => (capture = explainCapture(cl, new Set(mqs))).filter });
      const expected = derive(captured.trace, model, new Routes(model), mqs, model.durationUs, capture!.aggregate);

      let stream: ExplainStream | null = null;
      const streamed = simulate(model, {
        captureTrace: (cl) => (stream = new ExplainStream(cl.model, cl.routes, mqs)).filter(cl),
      });
      expect(streamed.trace).toEqual([]);
      expect(streamed.traceHash).toBe(captured.traceHash);
      expect(stream!.recordsUsed).toBe(captured.trace.length);
      const got = stream!.finish(model.durationUs);
      expect(got.intervals.length).toBeGreaterThan(0);
      expect(got).toEqual(expected);
    });
  }

  it("with keepAll (--trace) it also captures every record, and the account is the one without", () => {
    const model = scenario("count-flow-control", 5 * S);
    const plain = simulate(model);
    const along = explainAlongside();
    const run = simulate(model, { captureTrace: (cl) => along.captureTrace(cl, true) });
    expect(run.trace).toHaveLength(plain.summary.traceRecords);
    expect(run.traceHash).toBe(plain.traceHash);
    expect(run.summary).toEqual(plain.summary);
    expect(along.finish(run).explanation).toEqual(explain(model));
  });
});
