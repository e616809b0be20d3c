// Issue 11: the message store tells the truth under replays and resets. Whole runs through simulate(),
// with the invariants (cache counters, committed offsets, conservation) checked every second of virtual
// time, so a defect that bends the books fails the run.
import { describe, expect, it } from "vitest";
import { simulate } from "../run/simulate.ts";
import type { ScenarioInput } from "../scenario/types.ts";

const S = 1_000_000;
const CHECKS = { checkEveryUs: S };

/**
 * One queue at 2 000 msg/s (uniform arrivals). G has 20 workers at 1 ms per message: it keeps up, so by
 * t its committed offset is about 2 000·t. `extraGroups` adds groups beside it.
 */
function replayScenario(duration: string, faults: unknown[], extraGroups: unknown[] = []): ScenarioInput {
  return {
    name: "replay", duration, profile: "5.x", network: { latency: "1ms" }, brokers: [{ name: "b" }],
    topics: [{ name: "T", brokers: ["b"], queuesPerBroker: 1, produce: { rate: 2000, arrival: "uniform" } }],
    groups: [{ name: "G", subscribe: { T: "*" }, listener: { consumeTime: "1ms" } }, ...(extraGroups as ScenarioInput["groups"])],
    faults: faults as ScenarioInput["faults"],
  };
}

describe("a replay re-consumes exactly what was consumed (defect 1)", () => {
  // At 120 s the broker answers G's next pull PULL_OFFSET_MOVED to the queue's min offset, 0 (retention
  // deleted nothing). 5.x fixes the offset at once and re-creates the queue; G then re-reads every
  // message from 0. By then it had consumed N ≈ 240 000 messages; re-reading at up to 20 000 msg/s takes
  // ~15 s, so by 200 s every one of them came back once: duplicates = N, give or take the pulls in flight
  // when the fault hit (a 32-message batch or two).
  const rewind = [{ kind: "offsetIllegal", at: "120s", target: "T@b#0", nextBeginOffset: "min" }];
  const consumedBy120s = simulate(replayScenario("120s", []), CHECKS).summary.messages.consumed;

  it("duplicates = messages consumed before the rewind, and none is lost", () => {
    const r = simulate(replayScenario("200s", rewind), CHECKS);
    expect(consumedBy120s).toBeGreaterThan(239_000);
    expect(Math.abs(r.summary.messages.duplicates - consumedBy120s)).toBeLessThanOrEqual(64);
    expect(r.summary.messages.lost).toBe(0);
    expect(r.summary.perQueue[0]!.minOffset).toBe(0);
  });

  it("whether or not another group holds old messages in memory (it used to change duplicates 15×)", () => {
    // H consumes 10 msg/s with one thread, so it holds the store from near offset 0 the whole run.
    const slow = { name: "H", subscribe: { T: "*" }, consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET", config: { consumeThreadMin: 1, consumeThreadMax: 1 }, listener: { consumeTime: "100ms" } };
    const alone = simulate(replayScenario("200s", rewind), CHECKS);
    const pinned = simulate(replayScenario("200s", rewind, [slow]), CHECKS);
    const g = (r: typeof alone) => r.summary.groups.find((x) => x.group === "G")!;
    expect(g(pinned).duplicates).toBe(g(alone).duplicates);
    expect(g(pinned).consumed).toBe(g(alone).consumed);
  });
});

describe("offsetIllegal beyond the max offset (defect 3)", () => {
  it("is clamped to the max: the run's books hold, and the messages between are skipped (lost) once", () => {
    // At 30 s G is ~60 000 messages in and fully caught up; a next offset of 10 000 000 becomes max (~60 000).
    const r = simulate(replayScenario("60s", [{ kind: "offsetIllegal", at: "30s", target: "T@b#0", nextBeginOffset: 10_000_000 }]), CHECKS);
    expect(r.summary.messages.consumed + r.summary.messages.lost + r.summary.messages.unpulled + r.summary.messages.cached + r.summary.messages.inFlight)
      .toBe(r.summary.messages.produced);
    expect(r.summary.messages.lost).toBeLessThan(100); // caught up: at most a pull's worth skipped
  });
});
