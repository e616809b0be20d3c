// Broker groups with replicas in whole runs (broker spec §4, §5, §6.4): the shipped scenarios
// master-crash-slave-read, role-swap-offset-rollback and dledger-retry-storm, with the numbers each
// rule predicts derived from the run's own state at the moments that matter (probes every second).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Cluster } from "./Cluster.ts";
import { simulate } from "../run/simulate.ts";
import type { Profile, ScenarioInput } from "../scenario/types.ts";

const S = 1_000_000;
const G = 0;
const load = (name: string) => JSON.parse(readFileSync(new URL(`../../scenarios/${name}.json`, import.meta.url), "utf8")) as ScenarioInput;

interface Probe {
  tS: number;
  /** Per node: its committed offsets of broker-a's TopicTest queues, and pulls it served so far. */
  nodes: { offsets: number[]; served: number; down: boolean; slave: boolean }[];
  /** broker-a's TopicTest queues' max offsets (the shared log). */
  max: number[];
}

/** Runs `sc` and takes a probe at every whole second. */
function probed(sc: ScenarioInput): { probes: Probe[]; cl: Cluster; r: ReturnType<typeof simulate> } {
  let cl!: Cluster;
  const probes: Probe[] = [];
  const r = simulate(sc, {
    sliceUs: S,
    configure: (c) => void (cl = c),
    onProgress: (t) => {
      const qs = cl.routes.topicQueues(0).filter((q) => cl.routes.brokerOf(q) === 0);
      probes.push({
        tS: t / S,
        nodes: cl.nodes.map((n) => ({ offsets: qs.map((q) => n.offsets.queryOffset(G, q)), served: n.processor.served, down: n.down, slave: n.isSlave })),
        max: qs.map((q) => cl.brokers[0]!.store.queue(q).maxOffset),
      });
    },
  });
  return { probes, cl, r };
}
const at = (probes: Probe[], tS: number) => probes.find((p) => p.tS === tS)!;
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe("master-crash-slave-read (broker spec §4.5, §4.6, §4.9)", () => {
  const { probes, r } = probed(load("master-crash-slave-read"));
  const [MASTER, , SLAVE] = [0, 1, 2]; // node 1 is broker-b

  it("while the master is down the slave serves broker-a's pulls and takes the consumers' commits; the master's table does not move", () => {
    const p61 = at(probes, 61);
    const p169 = at(probes, 169);
    expect(p61.nodes[MASTER]!.down).toBe(true);
    expect(p169.nodes[SLAVE]!.served - p61.nodes[SLAVE]!.served).toBeGreaterThan(1000);
    expect(p169.nodes[MASTER]!.served).toBe(p61.nodes[MASTER]!.served);
    // Commits reached the slave (UPDATE_CONSUMER_OFFSET every 5 s: no piggy-back to a slave) and moved on
    // well past its last sync from the master (53 s).
    expect(sum(p169.nodes[SLAVE]!.offsets)).toBeGreaterThan(sum(at(probes, 59).nodes[SLAVE]!.offsets) + 50_000);
  });

  it("the master comes back at 170 s with the offsets it flushed at 55 s (no slave pushes offsets back)", () => {
    expect(at(probes, 171).nodes[MASTER]!.offsets).toEqual(at(probes, 55).nodes[MASTER]!.offsets);
  });

  it("the redeployed group reads those offsets: the replay equals what was consumed on broker-a between 55 s and the stop at 175 s", () => {
    // At 175 s the stopping instances persist to the node their route calls master — still the slave
    // (their next route poll is at 180.01 s) — so the slave's table at 175 s is where they were.
    const reached = at(probes, 175).nodes[SLAVE]!.offsets;
    const masterAt55 = at(probes, 55).nodes[MASTER]!.offsets;
    const predicted = sum(reached) - sum(masterAt55);
    expect(predicted).toBeGreaterThan(100_000);
    expect(r.summary.messages.duplicates).toBeGreaterThanOrEqual(predicted - 40);
    expect(r.summary.messages.duplicates).toBeLessThanOrEqual(predicted + 40);
    expect(r.summary.messages.lost).toBe(0);
  });

  it("the slave's newer offsets are overwritten by the master's at its first sync after learning the master again (registration ≤ 30 s, sync ≤ 10 s)", () => {
    // Registration at 190 s (10 s + 30 s × k) returns the master; the 4.9 sync runs at 193 s.
    // (A pull answered after the stop may still commit one more message: ± 1 per queue.)
    expect(Math.abs(sum(at(probes, 192).nodes[SLAVE]!.offsets) - sum(at(probes, 175).nodes[SLAVE]!.offsets))).toBeLessThanOrEqual(4);
    const after = at(probes, 194);
    expect(sum(after.nodes[SLAVE]!.offsets)).toBeLessThan(sum(at(probes, 192).nodes[SLAVE]!.offsets));
  });
});

describe("master crash under each profile (§3.3)", () => {
  const run = (profile: Profile, slaveReadEnable: boolean) => {
    const sc = load("master-crash-slave-read");
    sc.profile = profile;
    sc.brokers[0]!.config = { slaveReadEnable };
    sc.faults = sc.faults!.slice(0, 1);
    sc.expect = [];
    return probed(sc).probes;
  };

  it("5.x without slaveReadEnable: the slave refuses every pull (SYSTEM_BUSY) — broker-a's queues do not move until the master returns", () => {
    const probes = run("5.x", false);
    expect(at(probes, 169).nodes[2]!.served).toBe(0);
    // The consumers commit their (frozen) positions to the slave every 5 s: nothing moves.
    expect(at(probes, 169).nodes[2]!.offsets).toEqual(at(probes, 100).nodes[2]!.offsets);
  });

  it("4.9 without slaveReadEnable: the slave still serves (rejectRequest is false in 4.x)", () => {
    const probes = run("4.9", false);
    expect(at(probes, 169).nodes[2]!.served).toBeGreaterThan(1000);
  });

  it("5.x with slaveReadEnable: served, and a caught-up queue is not long-polled — a pull per round trip", () => {
    const probes = run("5.x", true);
    const served = at(probes, 169).nodes[2]!.served - at(probes, 160).nodes[2]!.served;
    // broker-a's backlog is drained by ~95 s; after that each of the 4 queues' pull loops against the
    // slave with PULL_RETRY_IMMEDIATELY: far more answers than one per 15 s hold.
    expect(served).toBeGreaterThan(4 * 9 * 100);
  });
});

describe("role-swap-offset-rollback (§4.11 with a manual swap, §4.7)", () => {
  const { probes, r } = probed(load("role-swap-offset-rollback"));
  const [OLD, , NEW] = [0, 1, 2];

  it("the promoted slave keeps the log up to the stall (60 s) and the offsets of its last sync (53 s)", () => {
    const before = at(probes, 89);
    const after = at(probes, 90);
    expect(after.nodes[NEW]!.slave).toBe(false);
    expect(after.nodes[OLD]!.slave).toBe(true);
    // The log is cut back to what was stored by 60 s.
    expect(after.max).toEqual(at(probes, 60).max.map((m, i) => Math.min(m, after.max[i]!)));
    // 1 000 msg/s over 8 queues: 125 per broker-a queue per second, 30 s of them gone (less the 2 ms lag).
    expect(sum(before.max) - sum(after.max)).toBeGreaterThan(4 * 29 * 125);
    expect(after.nodes[NEW]!.offsets).toEqual(at(probes, 55).nodes[NEW]!.offsets);
  });

  it("the redeployed consumers replay from the 53 s offsets to the cut (60 s): Σ (max after the cut − synced offset)", () => {
    const after = at(probes, 90);
    const predicted = sum(after.max) - sum(after.nodes[NEW]!.offsets);
    // 53 s → 60 s at 125 msg/s on each of 4 queues: ≈ 3 500.
    expect(predicted).toBeGreaterThan(4 * 6.5 * 125);
    expect(predicted).toBeLessThan(4 * 7.5 * 125);
    expect(r.summary.messages.duplicates).toBeGreaterThanOrEqual(predicted - 10);
    expect(r.summary.messages.duplicates).toBeLessThanOrEqual(predicted + 10);
    expect(r.summary.messages.lost).toBe(0);
  });
});

describe("dledger-retry-storm (§5, §6.4)", () => {
  let cl!: Cluster;
  const sc = load("dledger-retry-storm");
  const res = simulate(sc, { configure: (c) => void (cl = c), captureTrace: (c) => (type) => type === c.nodes[0]!.T.retryDelivered });

  it("the new leader re-delivers every retry the old one delivered after the last delay-offset sync (93 s)", () => {
    const delivered = res.trace.filter((t) => t.tUs >= 93 * S && t.tUs < 100 * S).length;
    const replays = cl.nodes[1]!.scheduleService.redelivered;
    // Sync at 93 s + 0.2 ms transit each way: deliveries in that instant are the only slack.
    expect(replays).toBeGreaterThan(400);
    expect(Math.abs(replays - delivered)).toBeLessThanOrEqual(2);
    expect(cl.nodes[0]!.scheduleService.redelivered).toBe(0);
  });

  it("each replayed retry is consumed again: the duplicates are those copies (and nothing is lost)", () => {
    const replays = cl.nodes[1]!.scheduleService.redelivered;
    expect(res.summary.messages.duplicates).toBeGreaterThanOrEqual(replays * 0.8);
    expect(res.summary.messages.duplicates).toBeLessThanOrEqual(replays + 10);
    expect(res.summary.messages.lost).toBe(0);
  });
});

describe("5.x slave-acting-master (§4.10)", () => {
  /** master-crash-slave-read under 5.x with slaveReadEnable; the master crashes at `crashS` and returns at 170 s. */
  const run = (actingMaster: boolean, crashS = 60) => {
    const sc = load("master-crash-slave-read");
    sc.profile = "5.x";
    sc.brokers[0]!.config = { slaveReadEnable: true };
    (sc.brokers[0] as unknown as Record<string, unknown>).replication = { actingMaster };
    sc.faults![0] = { kind: "brokerCrash", at: `${crashS}s`, target: "broker-a", restartAfter: `${170 - crashS}s` };
    sc.expect = [];
    return probed(sc);
  };

  it("the slave is presented as brokerId 0 while the master is gone (consumers commit to it by pull), and steps back when it returns", () => {
    const { cl, probes } = run(true, 62);
    // 5.0.0+ stores a piggy-backed commit on a slave: the acting slave's table follows the consumers.
    const slave = (t: number) => sum(at(probes, t).nodes[2]!.offsets);
    // Route polls at 10 ms + 30 s × k: the consumers find the acting slave at 90.01 s.
    expect(slave(120) - slave(91)).toBeGreaterThan(50_000);
    expect(cl.nameServer!.master(0)).toBe(0);
    expect(cl.nodes[2]!.replica!.acting).toBe(false);
  });

  it("the returning master adopts the acting slave's offsets when its DataVersion is not newer: the redeploy replays next to nothing", () => {
    // Crash at 62 s, just after the slave's first sync (61 s, 5.x: > 60 s since start) took the master's
    // DataVersion; the drain from the acting slave then bumps the slave's (one per 500 commits) past the
    // master's, which had only 1 s of commits after that sync when it last persisted (60 s).
    const acting = run(true, 62);
    expect(at(acting.probes, 171).nodes[0]!.offsets).toEqual(at(acting.probes, 170).nodes[2]!.offsets);
    expect(acting.r.summary.messages.duplicates).toBeLessThan(200);
    const classic = run(false, 62);
    expect(classic.r.summary.messages.duplicates).toBeGreaterThan(50_000);
  });

  it("…and keeps its own stale table when its DataVersion is newer: a crash at 60 s, before the slave's first 5.x sync", () => {
    // The slave never synced (first sync due at 61 s): its version counts only the outage's commits,
    // fewer than the master's 60 s of piggy-backed commits — the reverse sync is skipped, the replay stays.
    const acting = run(true, 60);
    expect(at(acting.probes, 171).nodes[0]!.offsets).toEqual(at(acting.probes, 55).nodes[0]!.offsets);
    expect(acting.r.summary.messages.duplicates).toBeGreaterThan(50_000);
  });

  it("while acting, a caught-up pull is held (minBrokerIdInGroup ≠ 0), not answered PULL_RETRY_IMMEDIATELY in a loop", () => {
    const acting = run(true);
    const classic = run(false);
    const served = (p: Probe[]) => at(p, 169).nodes[2]!.served - at(p, 140).nodes[2]!.served;
    // broker-a's 4 queues are drained by then: held pulls answer once per 15 s hold (≈ 4 × 29 / 15 ≈ 8),
    // the classic slave loops a round trip at a time.
    expect(served(acting.probes)).toBeLessThan(50);
    expect(served(classic.probes)).toBeGreaterThan(1000);
  });
});

describe("failover (a controller's election, §4.11)", () => {
  const sc = load("master-crash-slave-read");
  sc.faults = [{ kind: "failover", at: "60s", target: "broker-a", restartAfter: "60s" }];
  sc.expect = [];
  const { probes, cl, r } = probed(sc);

  it("the slave is master at once and producers write to it from their next route poll (60.01 s); the old master returns at 120 s as a slave", () => {
    expect(at(probes, 61).nodes[2]!.slave).toBe(false);
    expect(at(probes, 61).nodes[0]!.down).toBe(true);
    // 1 000 msg/s over 8 queues: broker-a's 4 queues grow by ≈ 125/s each again after 60.01 s.
    expect(sum(at(probes, 70).max) - sum(at(probes, 61).max)).toBeGreaterThan(4 * 9 * 120);
    expect(at(probes, 121).nodes[0]!).toMatchObject({ down: false, slave: true });
    expect(cl.nodeLog.filter((e) => e.node === 0).map((e) => [e.tUs / S, e.state])).toEqual([[0, "master"], [60, "down"], [120, "slave"]]);
  });

  it("the promoted slave lacks only what was not yet replicated (a 2 ms lag at 1 000 msg/s: a message or two)", () => {
    expect(r.summary.messages.lost).toBeLessThanOrEqual(2);
  });
});
