import { describe, expect, it } from "vitest";
import { InputError } from "./errors.ts";
import { normalizeScenario } from "./normalize.ts";
import { RAMP_STEPS_MAX, rampSteps } from "./rateChanges.ts";
import { simulate } from "../run/simulate.ts";
import { rejection as rejectionOf } from "./testRejection.ts";

type Json = Record<string, any>;
const S = 1_000_000; // µs per second

/** A one-topic scenario producing 6 000 msg/s with these rate changes; returns the model's steps. */
function steps(rateChanges: unknown[], rate = 6000): { atUs: number; rate: number }[] {
  return normalizeScenario(scenario(rateChanges, rate)).topics[0]!.produce!.rateChanges;
}

function scenario(rateChanges: unknown[], rate = 6000): Json {
  return {
    name: "rates",
    duration: "10m",
    brokers: [{ name: "broker-a" }],
    topics: [{ name: "TopicTest", brokers: ["broker-a"], produce: { rate, rateChanges } }],
    groups: [{ name: "G1", subscribe: { TopicTest: "*" } }],
  };
}

const rejection = (rateChanges: unknown[]): InputError => rejectionOf(scenario(rateChanges));

describe("rateChanges: steps", () => {
  it("keeps plain { at, rate } steps as they are, compound durations included", () => {
    expect(steps([{ at: "1m30s", rate: 100 }, { at: 120_000, rate: 0 }])).toEqual([{ atUs: 90 * S, rate: 100 }, { atUs: 120 * S, rate: 0 }]);
  });
});

describe("rateChanges: burst", () => {
  it("runs the burst rate for its length, then returns to the rate in force before it", () => {
    // 6 000 msg/s, 18 000 from 2 min for 60 s, back to 6 000 at 3 min.
    expect(steps([{ burst: { at: "2m", rate: 18000, for: "60s" } }])).toEqual([{ atUs: 120 * S, rate: 18000 }, { atUs: 180 * S, rate: 6000 }]);
  });

  it("returns to the rate of the latest step before it, not produce.rate", () => {
    expect(steps([{ at: "1m", rate: 2000 }, { burst: { at: "2m", rate: 9000, for: "30s" } }])).toEqual([
      { atUs: 60 * S, rate: 2000 }, { atUs: 120 * S, rate: 9000 }, { atUs: 150 * S, rate: 2000 },
    ]);
  });

  it("lets the next entry start exactly where the burst ends: it replaces the return step", () => {
    expect(steps([{ burst: { at: "2m", rate: 18000, for: "1m" } }, { at: "3m", rate: 100 }])).toEqual([{ atUs: 120 * S, rate: 18000 }, { atUs: 180 * S, rate: 100 }]);
  });
});

describe("rateChanges: ramp", () => {
  it("expands a ramp into 1 s steps at the line's rate at each step's middle, then holds `to`", () => {
    // 1 000 → 2 000 over 4 s from 1 min: 4 steps of 250 msg/s each; middles at 1/8, 3/8, 5/8, 7/8 of the way.
    expect(steps([{ ramp: { from: 1000, to: 2000, over: "4s", at: "1m" } }])).toEqual([
      { atUs: 60 * S, rate: 1125 }, { atUs: 61 * S, rate: 1375 }, { atUs: 62 * S, rate: 1625 }, { atUs: 63 * S, rate: 1875 }, { atUs: 64 * S, rate: 2000 },
    ]);
  });

  it("starts at 0 and from the rate in force when at and from are left out", () => {
    // 6 000 → 0 over 2 s: middles at 1/4 and 3/4 → 4 500 and 1 500.
    expect(steps([{ ramp: { to: 0, over: "2s" } }])).toEqual([{ atUs: 0, rate: 4500 }, { atUs: S, rate: 1500 }, { atUs: 2 * S, rate: 0 }]);
  });

  it("produces on average the messages of the straight line: (from + to) / 2 × over", () => {
    // 1 000 → 10 000 over 5 min from 1 min: 300 steps of 1 s; (1 000 + 10 000) / 2 × 300 s = 1 650 000 messages.
    const all = steps([{ ramp: { from: 1000, to: 10000, over: "5m", at: "1m" } }]);
    expect(all.length).toBe(301);
    const ramp = all.slice(0, -1);
    const messages = ramp.reduce((sum, s, k) => sum + s.rate * ((all[k + 1]!.atUs - s.atUs) / S), 0);
    expect(messages).toBeCloseTo(1_650_000, 6);
    expect(all[300]).toEqual({ atUs: 360 * S, rate: 10000 });
  });

  it("uses at most 1 000 steps: a 2 h ramp steps every 7.2 s", () => {
    const r = rampSteps(0, 0, 1000, 7200 * S);
    expect(r.length).toBe(RAMP_STEPS_MAX);
    expect(r[1]!.atUs).toBe(7_200_000);
    // Step k's rate: 1 000 × (k + ½) / 1 000 = k + 0.5.
    expect(r[999]!.rate).toBe(999.5);
  });

  it("makes one step for a ramp shorter than a second", () => {
    expect(rampSteps(5 * S, 100, 300, 400_000)).toEqual([{ atUs: 5 * S, rate: 200 }]);
  });

  it("lets a burst start where a ramp ends and return to the ramp's end rate", () => {
    expect(steps([{ ramp: { from: 0, to: 100, over: "1s", at: "10s" } }, { burst: { at: "11s", rate: 500, for: "5s" } }])).toEqual([
      { atUs: 10 * S, rate: 50 }, { atUs: 11 * S, rate: 500 }, { atUs: 16 * S, rate: 100 },
    ]);
  });
});

describe("rateChanges: errors name the entry and the field", () => {
  const cases: [unknown[], string, RegExp][] = [
    [[{ burst: { at: "2m", rate: 18000 } }], "topics.0.produce.rateChanges.0.burst.for", /missing; expected a duration/],
    [[{ burst: { at: "2m", rate: 18000, for: "0s" } }], "topics.0.produce.rateChanges.0.burst.for", /must be greater than 0/],
    [[{ burst: { at: "2m", rate: 18000, for: "1m", forr: 1 } }], "topics.0.produce.rateChanges.0.burst.forr", /unknown key "forr" — did you mean "for"\?; allowed: at, rate, for/],
    [[{ burst: { at: "2m", rate: -1, for: "1m" } }], "topics.0.produce.rateChanges.0.burst.rate", /-1 is out of range \[0, 10000000\]/],
    [[{ ramp: { from: 1, over: "1m" } }], "topics.0.produce.rateChanges.0.ramp.to", /missing/],
    [[{ ramp: { to: 1, over: "1m10" } }], "topics.0.produce.rateChanges.0.ramp.over", /the part "10" has no unit/],
    [[{ at: "1s", rate: 1 }, { ramp: { to: 1, over: "1m" } }], "topics.0.produce.rateChanges.1.ramp.at", /without "at" a ramp starts at 0, which only the first rate change may/],
    [[{ burst: { at: "1m", rate: 9, for: "1m" } }, { at: "1m30s", rate: 1 }], "topics.0.produce.rateChanges.1.at",
      /1\.5m must be at or after 2m, where the previous rate change \(the burst of rateChanges\.0\) ends/],
    [[{ at: "1m", rate: 9, burst: { at: "1m", rate: 9, for: "1m" } }], "topics.0.produce.rateChanges.0", /a burst entry holds only "burst" \(its fields go inside it\), but this one also has "at", "rate"/],
    [[{ ramp: { to: 1, over: "1s" }, burst: { at: "1m", rate: 9, for: "1m" } }], "topics.0.produce.rateChanges.0", /also has "ramp"/],
    [[{ brust: {} }], "topics.0.produce.rateChanges.0.brust", /did you mean "burst"/],
    [[{ burst: "2m" }], "topics.0.produce.rateChanges.0.burst", /must be an object; a rate change is/],
    [["2m"], "topics.0.produce.rateChanges.0", /"2m" is not an object; a rate change is \{ "at", "rate" \}, \{ "burst": .* or \{ "ramp": /],
    // Ramps of 1 000 steps (over 1 000 s), each starting where the previous ends (its end step replaced):
    // k ramps make 1 000 k + 1 steps, so the 100th (index 99) would bring 100 001 > 100 000.
    [Array.from({ length: 100 }, (_, i) => ({ ramp: { to: 1, over: "1000s", at: `${i * 1000}s` } })), "topics.0.produce.rateChanges.99",
      /the rate changes expand to more than 100000 steps \(a ramp makes up to 1000 \+ 1, a burst 2\); use fewer ramps/],
    // 50 000 bursts of 2 steps each (1 s apart, 1 ms long) make 100 000; the 50 001st goes past.
    [Array.from({ length: 50_001 }, (_, i) => ({ burst: { at: `${i}s`, rate: 1, for: "1ms" } })), "topics.0.produce.rateChanges.50000", /more than 100000 steps/],
  ];
  for (const [rateChanges, path, message] of cases) {
    it(`${path}: ${message.source.slice(0, 60)}`, () => {
      const e = rejection(rateChanges);
      expect(e.path).toBe(path);
      expect(e.reason).toMatch(message);
    });
  }
});

describe("rateChanges: what the producer sends", () => {
  it("a ramp 0 → 2 000 msg/s over 10 s, then a 5 s burst at 0: the straight line's 10 000 messages", () => {
    const input = (arrival: string) => ({
      name: "ramp", duration: "20s", brokers: [{ name: "b" }], groups: [{ name: "G", subscribe: { T: "*" } }],
      topics: [{ name: "T", brokers: ["b"], produce: { rate: 0, arrival, rateChanges: [{ ramp: { to: 2000, over: "10s", at: "5s" } }, { burst: { at: "15s", rate: 0, for: "5s" } }] } }],
    });
    // (0 + 2 000) / 2 × 10 s = 10 000. Evenly spaced arrivals restart their spacing at each of the 10
    // steps and an arrival falling exactly on a step's end gives way to the change: 9 990 to 10 000.
    const uniform = simulate(input("uniform")).summary.messages.produced;
    expect(uniform).toBeGreaterThanOrEqual(9990);
    expect(uniform).toBeLessThanOrEqual(10_000);
    // Poisson: a count with mean 10 000 and sd 100; within 3 sd.
    const poisson = simulate(input("poisson")).summary.messages.produced;
    expect(Math.abs(poisson - 10_000)).toBeLessThan(300);
  });
});
