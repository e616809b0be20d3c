// A slave's replication point (broker spec §4.2): appends up to now − lag, never going back; frozen while
// the HA link is down, caught up when it heals; SlaveSynchronize's cadence per version and mode (§4.7, §5).
import { describe, expect, it } from "vitest";
import { compileDist } from "../scenario/distributions.ts";
import { Replica, syncCadenceUs } from "./Replica.ts";

const S = 1_000_000;
const replica = (lag: unknown) =>
  new Replica({ mode: "classic", brokerRole: "ASYNC_MASTER", replicas: 1, actingMaster: false, lag: compileDist(lag, "duration", "lag") }, 1, 4, compileDist(lag, "duration", "lag"), () => 0.5);

describe("Replica", () => {
  it("holds the master's appends up to now − lag", () => {
    const r = replica("2s");
    expect(r.replicatedUpTo(10 * S)).toBe(8 * S);
    expect(r.replicatedUpTo(11 * S)).toBe(9 * S);
  });

  it("never goes back, even when a later draw of the lag is longer", () => {
    const r = replica({ dist: "uniform", min: "1s", max: "5s" });
    // rng 0.5 → 3 s every draw; force a longer lag by moving the clock less than the difference
    expect(r.replicatedUpTo(10 * S)).toBe(7 * S);
    expect(r.replicatedUpTo(9 * S)).toBe(7 * S); // 9 − 3 = 6 < 7: stays
  });

  it("a broken link freezes the point where it was when it broke; healing catches up at once", () => {
    const r = replica("1s");
    r.breakLink(60 * S);
    expect(r.replicatedUpTo(90 * S)).toBe(59 * S);
    expect(r.haLinkDown).toBe(true);
    r.healLink();
    expect(r.replicatedUpTo(90 * S)).toBe(89 * S);
  });

  it("a promoted replica is brokerId 0 with its link healed; a demoted one takes the id it is given", () => {
    const r = replica("1s");
    r.breakLink(5 * S);
    r.promoted();
    expect([r.brokerId, r.isSlave, r.haLinkDown]).toEqual([0, false, false]);
    r.demoted(2, 7 * S);
    expect([r.brokerId, r.isSlave]).toEqual([2, true]);
  });
});

describe("SlaveSynchronize cadence (§4.7, §5, §4.11)", () => {
  it("4.x: every 10 s from 3 s, ungated, classic or elected", () => {
    expect(syncCadenceUs("4.9", false)).toEqual({ firstUs: 3 * S, periodUs: 10 * S, gateUs: 0 });
    expect(syncCadenceUs("4.7", true)).toEqual({ firstUs: 3 * S, periodUs: 10 * S, gateUs: 0 });
  });
  it("5.x classic: a 3 s task from 10 s gated at 60 s; DLedger follower / controller slave: gated at 10 s", () => {
    expect(syncCadenceUs("5.x", false)).toEqual({ firstUs: 10 * S, periodUs: 3 * S, gateUs: 60 * S });
    expect(syncCadenceUs("5.x", true)).toEqual({ firstUs: 10 * S, periodUs: 3 * S, gateUs: 10 * S });
  });
});

describe("SYNC_MASTER (§4.2)", () => {
  const sync = (lag: string) =>
    new Replica({ mode: "classic", brokerRole: "SYNC_MASTER", replicas: 1, actingMaster: false, lag: compileDist(lag, "duration", "lag") }, 1, 4, compileDist(lag, "duration", "lag"), () => 0.5, true);
  it("4.x: the slave holds every acknowledged message — the point is now, whatever the lag", () => {
    expect(sync("50ms").replicatedUpTo(10 * S)).toBe(10 * S);
  });
  it("a stalled link still freezes it (isSlaveOK false: SLAVE_NOT_AVAILABLE, stored on the master only)", () => {
    const r = sync("50ms");
    r.breakLink(10 * S);
    expect(r.replicatedUpTo(20 * S)).toBe(10 * S);
  });
});
