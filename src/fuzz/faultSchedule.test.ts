import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { normalizeScenario } from "../scenario/normalize.ts";
import { FAULT_KINDS } from "../scenario/faultTypes.ts";
import { parseDurationUs } from "../scenario/units.ts";
import { applicableKinds, randomFaults, randomIncidents, topologyOf } from "./faultSchedule.ts";

const SCENARIO_DIR = join(import.meta.dirname, "..", "..", "scenarios");
const SHIPPED = readdirSync(SCENARIO_DIR).filter((n) => n.endsWith(".json") && n !== "schema.json").sort();
const load = (name: string) => JSON.parse(readFileSync(join(SCENARIO_DIR, name), "utf8")) as Record<string, unknown>;

/** End of an entry, µs: its start plus whatever it lasts. */
function endUs(f: Record<string, unknown>): number {
  const at = parseDurationUs(f.at, "at");
  const last = f.for ?? f.restartAfter ?? (f.kind === "hangMessage" ? f.duration : undefined);
  return at + (last === undefined ? 0 : parseDurationUs(last, "for"));
}

describe("randomFaults", () => {
  it.each(SHIPPED)("every schedule drawn for %s under 50 seeds validates, inside the fault phase", (name) => {
    const scenario = load(name);
    const durationUs = normalizeScenario(scenario).durationUs;
    const phaseUs = Math.min(durationUs, 60_000_000) / 2;
    const seen = new Set<string>();
    for (let seed = 0; seed < 50; seed++) {
      const faults = randomFaults(scenario, seed, { faultPhaseUs: phaseUs, count: 4 });
      expect(faults.length).toBeGreaterThanOrEqual(4);
      const withFaults = { ...scenario, faults: [...((scenario.faults as unknown[]) ?? []), ...faults] };
      expect(() => normalizeScenario(withFaults), JSON.stringify(faults)).not.toThrow();
      for (const f of faults) {
        seen.add(String(f.kind));
        expect(endUs(f)).toBeLessThanOrEqual(phaseUs);
      }
    }
    // 200 incidents reach most of the applicable kinds.
    const kinds = applicableKinds(topologyOf(normalizeScenario(scenario)));
    expect(seen.size).toBeGreaterThan(kinds.length / 2);
  });

  it("every kind of the fault table validates on a scenario with classic and DLedger replicas", () => {
    const scenario = {
      ...load("master-crash-slave-read.json"),
      brokers: [
        { name: "broker-a", replicas: [{ role: "SLAVE" }] },
        { name: "broker-b", replicas: [{ role: "FOLLOWER" }, { role: "FOLLOWER" }], replication: { mode: "dledger" } },
      ],
      faults: [],
    };
    const kinds = applicableKinds(topologyOf(normalizeScenario(scenario)));
    expect(kinds).toEqual([...FAULT_KINDS]);
    for (const kind of FAULT_KINDS) {
      for (let seed = 0; seed < 20; seed++) {
        const faults = randomFaults(scenario, seed, { kinds: [kind], count: 2 });
        expect(faults.some((f) => f.kind === kind)).toBe(true);
        expect(() => normalizeScenario({ ...scenario, faults }), `${kind}: ${JSON.stringify(faults)}`).not.toThrow();
      }
    }
  });

  it("is a function of (scenario, seed): the same draws twice, other draws under another seed", () => {
    const scenario = load("default.json");
    expect(randomFaults(scenario, 7)).toEqual(randomFaults(scenario, 7));
    expect(randomFaults(scenario, 7)).not.toEqual(randomFaults(scenario, 8));
  });

  it("one more incident leaves the ones before it unchanged", () => {
    const scenario = load("default.json");
    const three = randomIncidents(scenario, 3, { count: 3 });
    const four = randomIncidents(scenario, 3, { count: 4 });
    expect(four.slice(0, 3)).toEqual(three);
  });

  it("skips kinds that do not apply: roleSwap without replicas gives nothing", () => {
    expect(randomFaults(load("default.json"), 1, { kinds: ["roleSwap", "leaderChange"] })).toEqual([]);
    expect(randomFaults(load("default.json"), 1, { kinds: ["roleSwap", "brokerCrash"], count: 3 }).every((f) => f.kind === "brokerCrash")).toBe(true);
  });

  it("pairs a fault without an end of its own with the entry that undoes it", () => {
    const scenario = load("default.json");
    const [stop, start] = randomIncidents(scenario, 5, { kinds: ["consumerStop"], count: 1 })[0]!;
    expect(stop).toMatchObject({ kind: "consumerStop" });
    expect(start).toMatchObject({ kind: "consumerStart", target: stop!.target });
    expect(parseDurationUs(start!.at, "at")).toBeGreaterThan(parseDurationUs(stop!.at, "at"));
    const [out, back] = randomIncidents(scenario, 5, { kinds: ["scale"], count: 1 })[0]!;
    expect(back).toMatchObject({ kind: "scale", target: out!.target, instances: 2 });
  });
});

describe("randomFaults at the instance budget", () => {
  it("never asks a group for more instances than validation allows beside the other groups", () => {
    // Two groups on two broker nodes (Σ n² × 2 / 2 ≤ 2^21): beside G1 at 1 000, G2 may run √(2^21 − 1000²) = 1 047;
    // beside G2 at 1 047, G1 may run √(2^21 − 1047²) = 1 000. Both are at their budget, so neither grows.
    const scenario = {
      name: "budget", duration: "10s",
      brokers: [{ name: "a" }, { name: "b" }],
      topics: [{ name: "T", brokers: ["a", "b"], queuesPerBroker: 1, produce: { rate: 0 } }],
      groups: [
        { name: "G1", instances: 1000, subscribe: { T: "*" } },
        { name: "G2", instances: 1047, subscribe: { T: "*" } },
      ],
    };
    expect(topologyOf(normalizeScenario(scenario)).groups.map((g) => g.instancesMax)).toEqual([1000, 1047]);
    let scaledOrStarted = 0;
    for (let seed = 0; seed < 40; seed++) {
      const faults = randomFaults(scenario, seed, { kinds: ["scale", "consumerStart"], count: 2 });
      scaledOrStarted += faults.length;
      expect(() => normalizeScenario({ ...scenario, faults }), JSON.stringify(faults)).not.toThrow();
    }
    expect(scaledOrStarted).toBeGreaterThanOrEqual(160);
  });
});
