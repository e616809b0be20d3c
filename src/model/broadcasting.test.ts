// BROADCASTING in whole runs (issue 12): three instances of one group each consume every queue and keep
// their offsets in a local file (persistAll every 5 s from 10 s, spec §12.2, §12.4); the books keep one
// account per instance. Numbers are derived in the comments from 200 msg/s spread evenly (uniform
// arrivals) over 4 queues.
import { describe, expect, it } from "vitest";
import { simulate } from "../run/simulate.ts";
import type { ScenarioInput } from "../scenario/types.ts";

const S = 1_000_000;

function broadcast(faults: unknown[] = [], listener: Record<string, unknown> = {}): ScenarioInput {
  return {
    name: "broadcast", seed: 5, phase: "aligned", duration: "60s", network: { latency: "1ms" },
    brokers: [{ name: "broker-a" }, { name: "broker-b" }],
    topics: [{ name: "T", brokers: ["broker-a", "broker-b"], queuesPerBroker: 2, produce: { rate: 200, arrival: "uniform" } }],
    groups: [{ name: "G", instances: 3, messageModel: "BROADCASTING", subscribe: { T: "*" }, listener: { consumeTime: "1ms", ...listener } }],
    faults,
  } as ScenarioInput;
}
const run = (sc: ScenarioInput) => simulate(sc, { captureTrace: () => () => true, checkEveryUs: S });

describe("BROADCASTING: every message to every instance", () => {
  it("each of the three instances consumes each of the 12 000 messages once; the group's books count 3 × 12 000 deliveries", () => {
    const r = run(broadcast());
    const g = r.summary.groups[0]!;
    expect(g.messageModel).toBe("BROADCASTING");
    // 200 msg/s × 60 s = 12 000 (uniform: exactly one each 5 ms; the last may still be in flight).
    for (const i of g.instances!) {
      expect(i.produced).toBe(12_000);
      expect(i.consumed).toBeGreaterThanOrEqual(11_996);
      expect(i.duplicates).toBe(0);
      expect(i.dropped).toBe(0);
    }
    expect(g.produced).toBe(36_000);
    expect(r.summary.messages.duplicates).toBe(0);
    // Nobody commits offsets to a broker.
    expect(r.trace.filter((t) => t.type === "offsetCommit")).toEqual([]);
  });

  it("a failed message is dropped by the instance whose call failed, not retried, and counted per instance", () => {
    const r = run(broadcast([], { failureProbability: 0.01 }));
    const g = r.summary.groups[0]!;
    expect(r.trace.filter((t) => t.type === "sendBack")).toEqual([]);
    for (const i of g.instances!) {
      // 1 % of 12 000 ≈ 120 each (drawn per message: the same messages fail for all three instances,
      // since a listener's outcome is a function of (message, attempt)).
      expect(i.dropped).toBeGreaterThan(80);
      expect(i.dropped).toBeLessThan(160);
      expect(i.lost).toBe(i.dropped);
      expect(i.consumed + i.dropped).toBeGreaterThanOrEqual(11_996);
    }
    expect(g.dropped).toBe(g.instances!.reduce((a, i) => a + i.dropped, 0));
  });
});

describe("BROADCASTING restarts and the local offset file", () => {
  it("a restarted instance resumes each queue at the offset its file held; what it consumed after the last persist comes again", () => {
    // Instance 1 crashes at 33 s (the last persistAll at 30 s) and restarts at 40 s.
    const r = run(broadcast([{ kind: "consumerCrash", target: "G/1", at: "33s", restartAfter: "7s" }]));
    const i1 = r.summary.groups[0]!.instances![1]!;
    // 3 s × 200 msg/s consumed after the persist: re-delivered after the restart.
    expect(i1.duplicates).toBeGreaterThan(580);
    expect(i1.duplicates).toBeLessThan(620);
    expect(i1.skippedAtStart).toBe(0);
    expect(i1.consumed).toBeGreaterThanOrEqual(11_996);
    // The restarted incarnation's queues start where the 30 s persist left them: offset ≈ 30 s × 50/s.
    const restarted = r.trace.filter((t) => t.type === "pqCreated" && t.tUs > 40 * S && t.consumer === 1);
    expect(restarted.length).toBe(4);
    for (const p of restarted) {
      expect(p.nextOffset).toBeGreaterThanOrEqual(1495);
      expect(p.nextOffset).toBeLessThanOrEqual(1500);
    }
    // The other instances never noticed.
    expect(r.summary.groups[0]!.instances![0]!.duplicates).toBe(0);
  });

  it("with its file lost, the restarted instance starts at the max offsets: what arrived while it was down is skipped", () => {
    const r = run(broadcast([{ kind: "consumerCrash", target: "G/2", at: "33s", restartAfter: "7s", localOffsets: "lost" }]));
    const i2 = r.summary.groups[0]!.instances![2]!;
    // Everything born from its crash (33 s) to its restart (40 s): 7 s × 200 = 1 400, plus what it had
    // pulled but not consumed at the crash (a message or two), skipped at start; no duplicates.
    expect(i2.skippedAtStart).toBeGreaterThanOrEqual(1400);
    expect(i2.skippedAtStart).toBeLessThan(1410);
    expect(i2.duplicates).toBe(0);
  });
});
