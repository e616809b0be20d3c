// A group disabled on the broker for a minute (updateSubscriptionGroup consumeEnable false, mqadmin
// updateSubGroup; spec §13.1 step 3, §4.4): every pull of the group is answered NO_PERMISSION and comes
// back 1 s later, consumption stalls, and it resumes when the group is enabled again.
import { describe, expect, it } from "vitest";
import { simulate } from "../run/simulate.ts";
import { explain } from "../explain/explain.ts";
import { REASON } from "../explain/types.ts";
import type { ScenarioInput } from "../scenario/types.ts";

const S = 1_000_000;
const NO_PERMISSION = 16;

/** One broker, T with 4 queues at 100 msg/s, one instance; the group disabled from 60 s to 120 s. */
const scenario = {
  name: "consume-enable", seed: 1, duration: "3m", profile: "4.9",
  brokers: [{ name: "broker-a" }],
  network: { latency: "1ms" },
  topics: [{ name: "T", brokers: ["broker-a"], queuesPerBroker: 4, produce: { rate: 100 } }],
  groups: [{ name: "G1", instances: 1, subscribe: { T: "*" }, listener: { consumeTime: "1ms" } }],
  faults: [{ kind: "updateSubscriptionGroup", at: "60s", group: "G1", consumeEnable: false, for: "60s" }],
  // 4 queues × 60 + the retry queue's 40–60 (derived below), and nothing else refused or lost.
  expect: ["groups.G1.pulls.byCode.NO_PERMISSION >= 280 and groups.G1.pulls.byCode.NO_PERMISSION <= 300", "groups.G1.pulls.byCode.TIMEOUT == 0"],
} as unknown as ScenarioInput;

describe("updateSubscriptionGroup consumeEnable false for 60 s", () => {
  const r = simulate(scenario, { captureTrace: (cl) => (type) => cl.trace.typeName(type) === "pullResult", checkEveryUs: 10 * S });
  const refusals = new Map<number, number[]>();
  for (const x of r.trace as unknown as { tUs: number; mq: number; code: number }[]) {
    if (x.code === NO_PERMISSION) refusals.set(x.mq, [...(refusals.get(x.mq) ?? []), x.tUs]);
  }
  const retryMq = r.cluster.routes.retryQueue(0, 0);
  const topicMqs = r.cluster.routes.topicQueues(0);

  it("each of T's queues is refused every 1002 ms (1000 ms exception delay + 1 ms each way) while disabled: 60 times", () => {
    // The first refusal comes when the held pull is replayed at the next arrival (25 msg/s per queue:
    // within 40 ms); then the pull returns every 1.002 s. From t₁ < 60.1 s, pulls reaching the broker
    // before 120 s number 1 + ⌊(120 − t₁) / 1.002⌋ = 1 + 59 = 60.
    for (const mq of topicMqs) {
      const t = refusals.get(mq)!;
      expect(t.length).toBe(60);
      expect(t[0]!).toBeGreaterThanOrEqual(60 * S);
      expect(t[0]!).toBeLessThan(60.1 * S);
      for (let i = 1; i < t.length; i++) expect(t[i]! - t[i - 1]!).toBe(1_002_000);
    }
  });

  it("the %RETRY% queue, empty and held (15 s, freed by the 5 s hold check), is refused from when its hold ends: 40–60 times", () => {
    const t = refusals.get(retryMq)!;
    // Its held pull comes back at most 15 s + 5 s after the change: t₀ ∈ [60 s, 80 s] → 1 + ⌊(120 − t₀) / 1.002⌋ ∈ [40, 60].
    expect(t[0]!).toBeGreaterThanOrEqual(60 * S);
    expect(t[0]!).toBeLessThanOrEqual(80 * S);
    expect(t.length).toBe(1 + Math.floor((120 * S - t[0]!) / 1_002_000));
    expect([...refusals.keys()].sort((a, b) => a - b)).toEqual([...topicMqs, retryMq].sort((a, b) => a - b));
  });

  it("expectations may name the counts: groups.G1.pulls.byCode.NO_PERMISSION and .TIMEOUT", () => {
    expect(r.summary.expectations.map((e) => e.ok)).toEqual([true, true]);
  });

  it("the summary counts the refusals per group: byCode.NO_PERMISSION = every refusal, and the codes add up to pulls.total", () => {
    const total = [...refusals.values()].reduce((a, t) => a + t.length, 0);
    const byCode = r.summary.groups[0]!.pulls!.byCode;
    expect(byCode.NO_PERMISSION).toBe(total);
    expect(Object.values(byCode).reduce((a, n) => a + n!, 0)).toBe(r.summary.pulls.total);
    expect(byCode.SUCCESS).toBe(r.summary.pulls.found);
  });

  it("consumption stalls while disabled and resumes after: the minute's 6 000 messages are consumed within seconds", () => {
    const { tSec, consumedPerSec, producedPerSec } = r.series.columns;
    const sum = (col: number[], from: number, to: number) => col.reduce((a, v, i) => (tSec[i]! > from && tSec[i]! <= to ? a + v : a), 0);
    // What was cached at 60 s (at most a pull's batch per queue; 1 ms each) is consumed in the first second.
    expect(sum(consumedPerSec, 61, 120)).toBe(0);
    // Enabled at 120 s: each queue's next pull (≤ 1.002 s later) finds its backlog; 6 000 messages at
    // 32 per pull and 1 ms each are consumed before 130 s, so by then consumption has caught up.
    expect(sum(consumedPerSec, 0, 130)).toBeGreaterThanOrEqual(sum(producedPerSec, 0, 120));
    expect(r.summary.messages.lost).toBe(0);
    expect(r.summary.messages.consumed).toBeGreaterThanOrEqual(r.summary.messages.produced - 10);
  });
});

/** Two brokers, T with 2 queues on each at 100 msg/s, one instance; broker-b write-only from 30 s to 60 s. */
const writeOnly = {
  name: "broker-permission", seed: 1, duration: "2m", profile: "5.x",
  brokers: [{ name: "broker-a" }, { name: "broker-b" }],
  network: { latency: "1ms" },
  topics: [{ name: "T", brokers: ["broker-a", "broker-b"], queuesPerBroker: 2, produce: { rate: 100 } }],
  groups: [{ name: "G1", instances: 1, subscribe: { T: "*" }, listener: { consumeTime: "1ms" } }],
  faults: [{ kind: "brokerPermission", at: "30s", target: "broker-b", perm: "w", for: "30s" }],
} as unknown as ScenarioInput;

describe("brokerPermission w (write-only) on broker-b for 30 s", () => {
  const r = simulate(writeOnly, { captureTrace: (cl) => (type) => cl.trace.typeName(type) === "pullResult", checkEveryUs: 10 * S });
  const routes = r.cluster.routes;
  const refused = (r.trace as unknown as { tUs: number; mq: number; code: number }[]).filter((x) => x.code === NO_PERMISSION);

  it("only broker-b's queues are refused, each every 1002 ms, until the client's route poll drops them; they come back the same way", () => {
    expect(new Set(refused.map((x) => routes.queues[x.mq]!.brokerIndex))).toEqual(new Set([1]));
    // The broker re-registers its topics with perm w (registerBrokerAll), so the consumer's next route poll
    // (every 30 s) removes broker-b from the subscribe set and the rebalance after it (ticks at 1.008 s +
    // 20.004 s·k: 21.012, 41.016, 61.020, 81.024 s) drops its queues. The poll falls between 30 s and
    // 41.016 s, so the refusals end with the 41.016 s rebalance.
    for (const x of refused) {
      expect(x.tUs).toBeGreaterThanOrEqual(30 * S);
      expect(x.tUs).toBeLessThan(41_016_000);
    }
    // T's two queues there: a held pull is replayed (and refused) within milliseconds of 30 s, then every
    // 1.002 s until 41.016 s: 1 + ⌊(41.016 − t₁) / 1.002⌋ = 11 each (30 s < t₁ < 30.06 s).
    for (const mq of routes.topicQueues(0).filter((q) => routes.queues[q]!.brokerIndex === 1)) {
      expect(refused.filter((x) => x.mq === mq).length).toBe(11);
    }
  });

  it("producers keep writing there (it is writable) and consumers catch up once it is readable again: nothing lost", () => {
    expect(r.summary.store.writesRefused).toBe(0);
    expect(r.summary.groups[0]!.pulls!.byCode.NO_PERMISSION).toBe(refused.length);
    expect(r.summary.messages.lost).toBe(0);
    expect(r.summary.messages.consumed).toBeGreaterThanOrEqual(r.summary.messages.produced - 10);
    expect(r.summary.faults[0]!.effect).toMatch(/^brokerPermission w: pulls answered NO_PERMISSION, writable; back to brokerPermission rw: pulls served, writable$/);
  });
});

describe("explain names the refusal", () => {
  it("a disabled group: one pullFailures interval per queue over the minute, caused by the fault, with its NO_PERMISSION answers", () => {
    const e = explain(scenario, { queue: "T@broker-a#0" });
    const [i, ...rest] = e.queues.find((q) => q.queue === "T@broker-a#0")!.intervals.filter((x) => x.reason === REASON.pullFailures);
    expect(rest).toEqual([]);
    expect(i!.figures.cause).toBe("group config changed");
    expect(i!.figures.fault).toBe("updateSubscriptionGroup G1");
    expect(i!.figures.errors).toBe(60); // the 60 refusals derived above
    expect(i!.figures.lastErrorCode).toBe(NO_PERMISSION);
    expect(i!.startUs).toBeGreaterThanOrEqual(60 * S);
    expect(i!.endUs).toBeLessThan(121 * S);
    expect(i!.settings.map((s) => s.setting)).toEqual(["subscriptionGroup.consumeEnable"]);
  });
});

describe("brokerPermission none on broker-b from 30 s to 60 s: neither read nor written", () => {
  const run = (fault: Record<string, unknown>) => simulate({ ...writeOnly, faults: [{ at: "30s", target: "broker-b", for: "30s", ...fault }] } as unknown as ScenarioInput);
  const none = run({ kind: "brokerPermission", perm: "none" });
  const readOnly = run({ kind: "brokerReadOnly" });
  /** Born times of the messages stored on broker-b's T queues. */
  const bornOnB = (r: typeof none) => {
    const routes = r.cluster.routes;
    const b = r.cluster.brokers[1]!;
    return routes.topicQueues(0).filter((q) => routes.queues[q]!.brokerIndex === 1).map((q) => {
      const st = b.store.queue(q);
      return Array.from({ length: st.maxOffset - st.minOffset }, (_, i) => st.bornUs(st.minOffset + i));
    });
  };

  it("the producers' side is brokerReadOnly's: they leave it at their route poll and come back at the first after 60 s", () => {
    const [n, ro] = [bornOnB(none), bornOnB(readOnly)];
    expect(n).toEqual(ro);
    // Something was written there before, nothing for the 30 s route poll interval after the change is seen, something after.
    const all = n.flat();
    expect(all.some((t) => t < 30 * S)).toBe(true);
    expect(all.filter((t) => t >= 30 * S && t < 60 * S).length).toBeLessThan(50 * 30 / 2); // well under the 1 500 of 30 s at 50 msg/s
    expect(all.some((t) => t >= 60 * S)).toBe(true);
  });

  it("only its pulls are refused: brokerReadOnly serves them", () => {
    expect(none.summary.groups[0]!.pulls!.byCode.NO_PERMISSION).toBeGreaterThan(0);
    expect(readOnly.summary.groups[0]!.pulls!.byCode.NO_PERMISSION).toBe(0);
    expect([none.summary.messages.lost, readOnly.summary.messages.lost]).toEqual([0, 0]);
  });
});
