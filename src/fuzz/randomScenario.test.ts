import { describe, expect, it } from "vitest";
import { normalizeScenario } from "../scenario/normalize.ts";
import type { Model } from "../scenario/types.ts";
import { randomFaults } from "./faultSchedule.ts";
import { randomScenario } from "./randomScenario.ts";

const SEEDS = Array.from({ length: 400 }, (_, i) => i);

describe("randomScenario", () => {
  const models: Model[] = SEEDS.map((s) => normalizeScenario(randomScenario(s)));

  it("randomScenario: every drawn scenario validates", () => {
    expect(models).toHaveLength(SEEDS.length);
  });

  it("randomScenario: the same seed gives the same scenario, another seed another one", () => {
    expect(JSON.stringify(randomScenario(42))).toBe(JSON.stringify(randomScenario(42)));
    const texts = new Set(SEEDS.slice(0, 50).map((s) => JSON.stringify({ ...randomScenario(s), name: "", description: "", seed: 0 })));
    expect(texts.size).toBe(50);
  });

  it("randomScenario: stays inside the brief's ranges (1–3 brokers, 1–2 topics, 1–8 queues, 1–3 groups of 1–6, 5–30 s)", () => {
    for (const m of models) {
      expect(m.brokers.length).toBeGreaterThanOrEqual(1);
      expect(m.brokers.length).toBeLessThanOrEqual(3);
      expect(m.topics.length).toBeLessThanOrEqual(2);
      for (const t of m.topics) expect(t.queuesPerBroker).toBeLessThanOrEqual(8);
      expect(m.groups.length).toBeLessThanOrEqual(3);
      for (const g of m.groups) expect(g.instances).toBeLessThanOrEqual(6);
      expect(m.durationUs).toBeGreaterThanOrEqual(5e6);
      expect(m.durationUs).toBeLessThanOrEqual(30e6);
    }
  });

  it("randomScenario: covers every shape — replicas classic and DLedger, both message models, both consume modes, all profiles", () => {
    const seen = new Set<string>();
    for (const m of models) {
      seen.add(`brokers:${m.brokers.length}`).add(`topics:${m.topics.length}`).add(`groups:${m.groups.length}`).add(`profile:${m.profile}`);
      for (const b of m.brokers) seen.add(`replication:${b.replication?.mode ?? "none"}`);
      for (const g of m.groups) seen.add(g.messageModel).add(g.consumeMode).add(`instances:${g.instances}`).add(`allocate:${g.allocate.strategy}`);
      for (const t of m.topics) seen.add(`queues:${t.queuesPerBroker}`);
    }
    const want = [
      "brokers:1", "brokers:2", "brokers:3", "topics:1", "topics:2", "groups:1", "groups:3", "profile:4.7", "profile:4.9", "profile:5.x",
      "replication:none", "replication:classic", "replication:dledger", "CLUSTERING", "BROADCASTING", "CONCURRENTLY", "ORDERLY",
      "instances:1", "instances:6", "queues:1", "queues:8", "allocate:AVG", "allocate:CONSISTENT_HASH",
    ];
    for (const w of want) expect(seen, w).toContain(w);
  });

  it("randomScenario: honours the duration and rate options", () => {
    for (const s of SEEDS.slice(0, 50)) {
      const m = normalizeScenario(randomScenario(s, { durationSMin: 2, durationSMax: 3, rateMax: 10 }));
      expect(m.durationUs === 2e6 || m.durationUs === 3e6).toBe(true);
      for (const t of m.topics) expect(t.produce!.rate).toBeLessThanOrEqual(10);
    }
  });

  it("randomScenario with randomFaults: the fault schedule drawn for it validates with it", () => {
    let faults = 0;
    for (const s of SEEDS.slice(0, 200)) {
      const scenario = randomScenario(s);
      const withFaults = { ...scenario, faults: randomFaults(scenario, s) };
      faults += normalizeScenario(withFaults).faults.length;
    }
    expect(faults).toBeGreaterThan(200);
  });
});
