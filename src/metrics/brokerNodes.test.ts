// The summary's broker nodes, the sampler's pulls served per node and the duplicates by cause, on the
// shipped scenarios with replicas (master-crash-slave-read, role-swap-offset-rollback,
// dledger-retry-storm) — and their absence without replicas. Timings quoted in the comments are the
// scenarios' faults and the model's periods (route polls at 0.01 s + 30 s × k, broker registration at
// 10 s + 30 s × k, 4.9's SlaveSynchronize every 10 s from 3 s, sampleEvery 1 s).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { simulate } from "../run/simulate.ts";
import { evaluateExpectation } from "../scenario/expect.ts";
import { parseExpectation } from "../scenario/expectParser.ts";
import { expectNames } from "../scenario/normalize.ts";
import type { ScenarioInput } from "../scenario/types.ts";

const load = (name: string) => JSON.parse(readFileSync(new URL(`../../scenarios/${name}.json`, import.meta.url), "utf8")) as ScenarioInput;
const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
const total = (r: { rollback: number; reset: number; rebalance: number; retryReplay: number }) => r.rollback + r.reset + r.rebalance + r.retryReplay;

describe("master-crash-slave-read: nodes and replays", () => {
  const r = simulate(load("master-crash-slave-read"));
  const nodes = r.summary.brokerNodes!;
  const t = r.series.columns.tSec;
  const served = (name: string) => r.series.perNode!.find((n) => n.name === name)!.servedPerSec;

  it("lists broker-a's two nodes (broker-b has no replicas) with their roles: the master down at 60 s and back at 170 s", () => {
    expect(nodes.map((n) => [n.name, n.broker])).toEqual([["broker-a", "broker-a"], ["broker-a-s1", "broker-a"]]);
    // brokerCrash at 60 s with restartAfter 110 s.
    expect(nodes[0]!.roleTimeline).toEqual([{ atMs: 0, state: "master" }, { atMs: 60_000, state: "down" }, { atMs: 170_000, state: "master" }]);
    expect(nodes[1]!.roleTimeline).toEqual([{ atMs: 0, state: "slave" }]);
    // Each holds broker-a's 4 TopicTest queues and its %RETRY%G1 queue.
    expect(nodes.map((n) => n.offsetsHeld)).toEqual([5, 5]);
  });

  it("pulls served per sample add up to each node's servedPulls; the master serves none while down", () => {
    // 240 one-second samples, the last at the end of the run.
    expect(t).toHaveLength(240);
    for (const n of nodes) expect(sum(served(n.name))).toBe(n.servedPulls);
    const down = served("broker-a").filter((_, i) => t[i]! > 60 && t[i]! <= 170);
    expect(down).toHaveLength(110);
    expect(down.every((v) => v === 0)).toBe(true);
  });

  it("the slave serves only from the crash on, until the last pull it held is answered", () => {
    // Consumers learn of the crash at their 60.01 s route poll. They stop at 175 s; a pull the slave
    // holds is answered within brokerSuspendMaxTimeMillis (15 s) plus a hold check (5 s): by 195 s.
    const s1 = served("broker-a-s1");
    const active = t.filter((_, i) => s1[i]! > 0);
    expect(active[0]).toBe(61);
    expect(active.at(-1)!).toBeLessThanOrEqual(195);
    expect(nodes[1]!.servedPulls).toBeGreaterThan(1000);
  });

  it("the duplicates are rollbacks (the redeployed instances read the returning master's 55 s offsets, below what the slave took) but for a handful of rebalance ones", () => {
    // While both instances shut down at 175 s (broker spec §8.2), the first to unregister makes the other
    // rebalance and take its queues for the few ms until its own shutdown ends: the calls the first one
    // finished after persisting its offsets (step 2) come again there — the uncommitted tail, "rebalance".
    const dups = r.summary.messages.duplicates;
    const rp = r.summary.replays!;
    expect(dups).toBeGreaterThan(100_000);
    expect([rp.reset, rp.retryReplay]).toEqual([0, 0]);
    expect(rp.rebalance).toBeLessThanOrEqual(10);
    expect(rp.rollback + rp.rebalance).toBe(dups);
    expect(r.summary.groups[0]!.replays).toEqual(r.summary.replays);
  });

  it("a scenario may assert them: groups.G1.replays.rollback and replays.rollback are expectation names", () => {
    const names = expectNames(r.model.groups);
    const check = (src: string) => evaluateExpectation(parseExpectation(src, names), { summary: r.summary, series: r.series });
    expect(check("groups.G1.replays.rollback > 100000 and groups.G1.replays.retryReplay == 0").ok).toBe(true);
    expect(check("replays.rollback + replays.rebalance == messages.duplicates")).toMatchObject({ ok: true, actual: expect.stringContaining("replays.rollback = ") });
  });
});

describe("role-swap-offset-rollback: nodes and replays", () => {
  const r = simulate(load("role-swap-offset-rollback"));
  const [a, s1] = r.summary.brokerNodes!;

  it("the roles swap at 90 s", () => {
    expect(a!.roleTimeline).toEqual([{ atMs: 0, state: "master" }, { atMs: 90_000, state: "slave" }]);
    expect(s1!.roleTimeline).toEqual([{ atMs: 0, state: "slave" }, { atMs: 90_000, state: "master" }]);
  });

  it("syncs: the slave's until the stall (13 … 53 s: 5), the old master's as a slave from its registration at 100 s (103 … 173 s: 8)", () => {
    // The sync at 3 s finds no master yet (the first registration is at 10 s).
    expect([a!.syncs, s1!.syncs]).toEqual([8, 5]);
  });

  it("every duplicate is a rollback: the new master's offsets are its last sync's (53 s), below the old master's commits up to 90 s", () => {
    const dups = r.summary.messages.duplicates;
    expect(dups).toBeGreaterThan(1000);
    expect(r.summary.replays).toEqual({ rollback: dups, reset: 0, rebalance: 0, retryReplay: 0 });
  });
});

describe("dledger-retry-storm: nodes and replays", () => {
  /** Runs the scenario for `durationS`, counting replayed deliveries never consumed successfully. */
  function run(durationS: number) {
    const replayed = new Map<string, number>();
    let byKey = false;
    const r = simulate(load("dledger-retry-storm"), {
      durationUs: durationS * 1_000_000,
      configure: (_cl, rec) => {
        const retryReplayed = rec.retryReplayed.bind(rec);
        const consumed = rec.consumed.bind(rec);
        rec.retryReplayed = (mq, offset, group, originKey) => {
          byKey ||= originKey !== undefined;
          replayed.set(`${mq}:${offset}`, 0);
          retryReplayed(mq, offset, group, originKey);
        };
        rec.consumed = (group, mq, offset, ...rest) => {
          const k = `${mq}:${offset}`;
          if (replayed.has(k)) replayed.set(k, replayed.get(k)! + 1);
          consumed(group, mq, offset, ...rest);
        };
      },
    });
    const neverConsumed = [...replayed.values()].filter((n) => n === 0).length;
    return { r, replayedTotal: replayed.size, neverConsumed, byKey };
  }
  const { r, replayedTotal } = run(180);
  const nodes = r.summary.brokerNodes!;

  it("the leader moves to broker-a-s1 at 100 s; it alone replays retries, one per replayed delivery reported", () => {
    expect(nodes.map((n) => n.name)).toEqual(["broker-a", "broker-a-s1", "broker-a-s2"]);
    expect(nodes.map((n) => n.roleTimeline.map((e) => `${e.state}@${e.atMs}`))).toEqual([
      ["master@0", "slave@100000"], ["slave@0", "master@100000"], ["slave@0"],
    ]);
    expect(nodes[1]!.retryReplays).toBeGreaterThan(400);
    expect(nodes.map((n) => n.retryReplays)).toEqual([0, replayedTotal, 0]);
    // s2 follows throughout: syncs at 13 … 173 s (17); s1 until it leads (13 … 93 s: 9).
    expect([nodes[1]!.syncs, nodes[2]!.syncs]).toEqual([9, 17]);
    expect(nodes[2]!.servedPulls).toBe(0);
  });

  it("every duplicate is a replayed retry's, and no replayed delivery makes more than one (Σ retryReplays bounds them)", () => {
    const dups = r.summary.messages.duplicates;
    expect(dups).toBeGreaterThan(0);
    expect(r.summary.replays).toEqual({ rollback: 0, reset: 0, rebalance: 0, retryReplay: dups });
    expect(dups).toBeLessThanOrEqual(sum(nodes.map((n) => n.retryReplays)));
  });

  it("given 10 minutes for every copy to settle, the duplicates are Σ retryReplays: one per replayed copy", () => {
    const long = run(600);
    const replays = sum(long.r.summary.brokerNodes!.map((n) => n.retryReplays));
    const c = long.r.summary.replays!;
    expect(long.r.summary.messages.duplicates).toBe(replays);
    expect(total(c)).toBe(replays);
    // A replayed copy that failed is sent back as a new message of the retry queue: without the origin
    // key in the broker's report it cannot be followed, so its duplicate falls to its owner segment.
    expect(c.retryReplay).toBe(long.byKey ? replays : replays - long.neverConsumed);
  });
});

describe("without replicas", () => {
  it("the summary has no brokerNodes and no replays, and the series no perNode", () => {
    const r = simulate({
      name: "plain", seed: 1, duration: "5s",
      brokers: [{ name: "broker-a" }],
      topics: [{ name: "T", brokers: ["broker-a"], queuesPerBroker: 2, produce: { rate: 100 } }],
      groups: [{ name: "G1", instances: 1, subscribe: { T: "*" } }],
    });
    expect(Object.keys(r.summary)).not.toContain("brokerNodes");
    expect(Object.keys(r.summary)).not.toContain("replays");
    expect(Object.keys(r.summary.groups[0]!)).not.toContain("replays");
    expect(r.series.perNode).toBeUndefined();
  });
});
