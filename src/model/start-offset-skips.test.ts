// Issue 11, defect 2: a group that starts a queue above messages it never settled. With no stored offset
// the client picks its start (§10.6): CONSUME_FROM_LAST_OFFSET takes the max offset when the broker's
// "start at 0" test fails (the queue's head not in page cache, §13.7), CONSUME_FROM_TIMESTAMP the
// timestamp's offset. The messages below were never marked, so the committed-offset invariant threw
// (exit 70, no report). Now they are skipped at start: their own fate and counter, in the summary and the
// conservation equation. Whole runs through simulate() with every check each second of virtual time.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { simulate } from "../run/simulate.ts";
import type { ScenarioInput } from "../scenario/types.ts";

const S = 1_000_000;
const CHECKS = { checkEveryUs: S };

function shipped(name: string): ScenarioInput {
  return JSON.parse(readFileSync(new URL(`../../scenarios/${name}.json`, import.meta.url), "utf8")) as ScenarioInput;
}

/** Every message is in exactly one place of the books. */
function balanced(m: ReturnType<typeof simulate>["summary"]["messages"]): number {
  return m.produced - (m.filtered + m.consumed + m.dlq + m.lost + m.skippedAtStart + m.inFlight + m.cached + m.retrying + m.unpulled);
}

describe("a new group starting above messages it has not settled (defect 2 reproducers)", () => {
  it("default.json with a 1 KiB page cache: the 8 × 20 000 backlog and the first milliseconds are skipped at start, not a crash", () => {
    // `rmqsim run scenarios/default.json --set brokers.0.hotBytes=1KiB --set brokers.1.hotBytes=1KiB
    // --duration 20s --set expect=[]` (its expectations read up to 90s.., beyond a 20 s run: exit 2). The backlog's first message is no longer in page cache, so QUERY_CONSUMER_OFFSET
    // answers QUERY_NOT_FOUND and both instances start every queue at its max offset: 20 000 backlog
    // messages per queue × 8, plus what 3 000 msg/s put in before the queries (~4 ms: a dozen).
    const sc = shipped("default");
    sc.duration = "20s";
    sc.expect = [];
    for (const b of sc.brokers) (b as { hotBytes?: string }).hotBytes = "1KiB";
    const m = simulate(sc, CHECKS).summary.messages;
    expect(m.skippedAtStart).toBeGreaterThanOrEqual(160_000);
    expect(m.skippedAtStart).toBeLessThan(160_000 + 30);
    expect(m.lost).toBe(0);
    expect(balanced(m)).toBe(0);
  });

  it("large-messages.json with a 10 000-message backlog: all 10 000 are skipped at start", () => {
    // `rmqsim run scenarios/large-messages.json --set topics.0.produce.backlog=10000`: 10 000 × 1 MiB
    // backlog is far past the page cache, so the consumer starts at 10 000 (no message of the 50 msg/s
    // has arrived by its query, a few ms in).
    const sc = shipped("large-messages");
    (sc.topics[0]!.produce as { backlog?: number }).backlog = 10_000;
    const m = simulate(sc, CHECKS).summary.messages;
    expect(m.skippedAtStart).toBe(10_000);
    expect(balanced(m)).toBe(0);
  });
});

/** One queue at 1 000 msg/s (uniform: one each ms), a 1 KiB page cache so the head is never hot. */
function lateScenario(groups: unknown[], hotBytes = "1KiB"): ScenarioInput {
  return {
    name: "late-start", seed: 1, duration: "20s", network: { latency: "1ms" },
    brokers: [{ name: "b", hotBytes }],
    topics: [{ name: "T", brokers: ["b"], queuesPerBroker: 1, produce: { rate: 1000, arrival: "uniform" } }],
    groups: groups as ScenarioInput["groups"],
  };
}
const group = (name: string, extra: Record<string, unknown> = {}) => ({ name, subscribe: { T: "*" }, listener: { consumeTime: "1ms" }, ...extra });

describe("startOffsetChosen in a run: late starts and timestamps", () => {
  it("a group starting 10 s late at the max offset skips the 10 000 messages before it; a group from the start skips the first few ms", () => {
    // G's first rebalance asks at ~9 ms (heartbeat, consumer list and query round trips of 1 ms links):
    // the 9 messages of 1 … 9 ms are below the max offset then. L starts at 10 s: ~10 009.
    const r = simulate(lateScenario([group("G"), group("L", { startAt: "10s" })]), CHECKS);
    const [g, l] = r.summary.groups;
    expect(g!.skippedAtStart).toBeLessThan(20);
    expect(l!.skippedAtStart).toBeGreaterThanOrEqual(10_000);
    expect(l!.skippedAtStart).toBeLessThan(10_020);
    expect(l!.lost).toBe(0);
    expect(balanced(r.summary.messages)).toBe(0);
  });

  it("CONSUME_FROM_TIMESTAMP 5 s back at 10 s skips what was born in the first 5 s", () => {
    // searchOffset(now − 5 s) at ~10.009 s: the first message born at or after ~5.009 s, ~5 008.
    const r = simulate(lateScenario([group("L", { startAt: "10s", consumeFromWhere: "CONSUME_FROM_TIMESTAMP", consumeTimestampBefore: "5s" })]), CHECKS);
    const l = r.summary.groups[0]!;
    expect(l.skippedAtStart).toBeGreaterThanOrEqual(5_000);
    expect(l.skippedAtStart).toBeLessThan(5_020);
    expect(l.consumed + l.skippedAtStart + l.inFlight + l.cached + l.unpulled).toBe(l.produced);
  });

  it("the same start with the head still in page cache starts at 0 (SUCCESS 0, §13.7): nothing is skipped", () => {
    const r = simulate(lateScenario([group("L", { startAt: "10s", consumeFromWhere: "CONSUME_FROM_TIMESTAMP", consumeTimestampBefore: "5s" })], "1GiB"), CHECKS);
    expect(r.summary.groups[0]!.skippedAtStart).toBe(0);
  });

  it("an instance restarted after a crash resumes from the group's stored offset: nothing more is skipped", () => {
    // G's two instances start with the first ~9 ms skipped; both crash at 5 s and come back at 8 s. The
    // offsets they committed (every 5 s, and with each pull) are on the broker, so they resume there.
    const sc = lateScenario([group("G", { instances: 2 })]);
    sc.faults = [
      { kind: "consumerCrash", at: "5s", target: "G/0", mode: "connectionClosed", restartAfter: "3s" },
      { kind: "consumerCrash", at: "5s", target: "G/1", mode: "connectionClosed", restartAfter: "3s" },
    ] as ScenarioInput["faults"];
    const r = simulate(sc, CHECKS);
    expect(r.summary.groups[0]!.skippedAtStart).toBeLessThan(20);
    expect(balanced(r.summary.messages)).toBe(0);
  });
});
