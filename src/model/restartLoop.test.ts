// scenarios/restart-loop.json: the copies of always-failing messages when their instance is restarted
// while their listener calls end during the shutdown (broker spec §8.2). A chain is one message's path
// through its original attempt and its one retry (maxReconsumeTimes 1): 2 send-backs, then the DLQ.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { simulate } from "../run/simulate.ts";
import type { ScenarioInput } from "../scenario/types.ts";

const shipped = JSON.parse(readFileSync(new URL("../../scenarios/restart-loop.json", import.meta.url), "utf8")) as ScenarioInput;
const MESSAGES = 40;

function run(awaitMs: number, stops: [string, string][] = [["15.5s", "17s"], ["32.5s", "34s"]]) {
  const sc = structuredClone(shipped);
  sc.groups[0]!.config = { ...sc.groups[0]!.config, awaitTerminationMillisWhenShutdown: awaitMs };
  sc.faults = stops.flatMap(([stop, start]) => [
    { kind: "consumerStop", at: stop, target: "G1/0" },
    { kind: "consumerStart", at: start, target: "G1/0" },
  ]) as ScenarioInput["faults"];
  sc.expect = [];
  return simulate(sc).summary.messages;
}

describe("restart-loop (§8.2)", () => {
  it("await 0, both restarts catch the 40 calls ending between the persist and the end: one more chain each — 2 × 40 × 3 send-backs", () => {
    const m = run(0);
    expect(m.sentBack).toBe(2 * MESSAGES * 3);
    expect(m.dlq).toBe(MESSAGES);
    expect(m.lost).toBe(0);
  });

  it("one such restart: 2 × 40 × 2", () => {
    expect(run(0, [["15.5s", "17s"]]).sentBack).toBe(2 * MESSAGES * 2);
  });

  it("await 0, a stop whose shutdown ends before the calls do (at 14 s: over by 15 s, the calls end at 16 s): their results are dropped — the originals come back, no extra chain", () => {
    expect(run(0, [["14s", "17s"]]).sentBack).toBe(2 * MESSAGES);
  });

  it("awaitTerminationMillisWhenShutdown 15 s: the calls end before the persist, which carries their offsets; the restart waits for the old process — 2 × 40", () => {
    const m = run(15_000);
    expect(m.sentBack).toBe(2 * MESSAGES);
    expect(m.dlq).toBe(MESSAGES);
  });
});
