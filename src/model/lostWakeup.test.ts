// The lostWakeup fault (broker spec §9.2): an arrival's notification for held pulls is lost, so the pull
// waits for the hold service's next check (every 5 s with long polling, every shortPollingTimeMills
// without) — the low-traffic latency tail. Whole runs at 1 msg/s per queue: a consumer that keeps up is
// always held when the next message arrives.
import { describe, expect, it } from "vitest";
import { simulate } from "../run/simulate.ts";
import type { ScenarioInput } from "../scenario/types.ts";

function scenario(fault: Record<string, unknown> | null, config: Record<string, unknown> = {}): ScenarioInput {
  return {
    name: "lost-wakeup", seed: 3, duration: "120s", network: { latency: "1ms" },
    brokers: [{ name: "broker-a", config }],
    topics: [{ name: "T", brokers: ["broker-a"], queuesPerBroker: 4, produce: { rate: 4, arrival: "uniform" } }],
    groups: [{ name: "G", instances: 1, subscribe: { T: "*" }, listener: { consumeTime: "1ms" } }],
    faults: fault === null ? [] : [{ kind: "lostWakeup", at: "0s", ...fault }],
  } as ScenarioInput;
}

describe("lostWakeup (§9.2)", () => {
  it("without the fault a held pull is answered on arrival: end-to-end a few ms", () => {
    const s = simulate(scenario(null)).summary;
    expect(s.latency.endToEnd.p99Ms).toBeLessThan(10);
  });

  it("every wake-up lost: each message waits for the next 5 s hold check — uniform over (0, 5 s]: p50 ≈ 2.5 s, p99 ≤ 5 s", () => {
    const s = simulate(scenario({ target: "broker-a" })).summary;
    // Arrivals every 250 ms over the 4 queues sit uniformly on the 5 s check grid: median 2.5 s, nothing
    // waits longer than one period (plus the round trip and the 1 ms listener).
    expect(s.latency.endToEnd.p50Ms).toBeGreaterThan(2000);
    expect(s.latency.endToEnd.p50Ms).toBeLessThan(3000);
    expect(s.latency.endToEnd.p99Ms).toBeLessThanOrEqual(5010);
    expect(s.latency.endToEnd.p99Ms).toBeGreaterThan(4500);
    expect(s.messages.lost).toBe(0);
  });

  it("short polling's 1 s tick bounds it instead: p99 ≤ 1 s", () => {
    const s = simulate(scenario({ target: "broker-a" }, { longPollingEnable: false })).summary;
    expect(s.latency.endToEnd.p99Ms).toBeLessThanOrEqual(1010);
  });

  it("one queue targeted: only its messages (a quarter) wait — p50 stays at ms, p90 is seconds", () => {
    const s = simulate(scenario({ target: "T@broker-a#0" })).summary;
    expect(s.latency.endToEnd.p50Ms).toBeLessThan(10);
    expect(s.latency.endToEnd.p99Ms).toBeGreaterThan(4000);
  });

  it("probability 0.5: a lost message goes with the next arrival on its queue that wakes the pull (1 s later, or 2 s…) or the check", () => {
    const s = simulate(scenario({ target: "broker-a", probability: 0.5 })).summary;
    // Half the messages wait ≥ 1 s (the queue's next arrival), the others carry them: p50 sits at the edge.
    expect(s.latency.endToEnd.p50Ms).toBeLessThan(1100);
    expect(s.latency.endToEnd.p99Ms).toBeGreaterThan(1000);
    expect(s.latency.endToEnd.p99Ms).toBeLessThanOrEqual(5010);
  });
});
