// The resetOffset fault's input (src/scenario/faultResetOffset.ts): its target forms, and errors that
// name the field and the allowed forms.
import { describe, expect, it } from "vitest";
import { InputError } from "./errors.ts";
import { normalizeScenario } from "./normalize.ts";
import { rejection as rejectionOf } from "./testRejection.ts";

function withFault(fault: Record<string, unknown>): unknown {
  return {
    name: "r", duration: "30m",
    brokers: [{ name: "broker-a" }],
    topics: [{ name: "T", brokers: ["broker-a"], queuesPerBroker: 2, produce: { rate: 10 } }],
    groups: [{ name: "G", subscribe: { T: "*" } }],
    faults: [{ kind: "resetOffset", at: "20m", group: "G", topic: "T", ...fault }],
  };
}
const fault = (f: Record<string, unknown>) => normalizeScenario(withFault(f)).faults[0]!;
const rejection = (f: Record<string, unknown>): InputError => rejectionOf(withFault(f));

describe("resetOffset fault input", () => {
  it("reads every target form: earliest, latest, a time into the run, a time before the fault, an offset", () => {
    expect(fault({ to: "earliest" })).toMatchObject({ kind: "resetOffset", group: 0, topic: 0, to: "earliest", force: true, atUs: 1_200_000_000 });
    expect(fault({ to: "latest", force: false })).toMatchObject({ to: "latest", force: false });
    expect(fault({ to: { time: "5m" } })).toMatchObject({ to: { timeUs: 300_000_000 } });
    // 10 min before the fault's 20 min: the virtual instant 10 min into the run.
    expect(fault({ to: { ago: "10m" } })).toMatchObject({ to: { timeUs: 600_000_000 }, label: "resetOffset G T → 10m ago" });
    expect(fault({ to: { offset: 1200 } })).toMatchObject({ to: { offset: 1200 } });
  });

  it("rejects what is not a target, naming the field and the allowed forms", () => {
    const e = rejection({ to: "yesterday" });
    expect(e.message).toContain("faults.0.to");
    expect(e.message).toContain('"earliest", "latest", { "time": "5m" }');
    expect(rejection({ to: { time: "5m", offset: 3 } }).message).toContain('exactly one of "time", "ago" or "offset"');
    expect(rejection({ to: { offset: -1 } }).message).toContain("faults.0.to.offset");
    expect(rejection({ to: { ago: "30m" } }).message).toMatch(/faults\.0\.to\.ago.*before the run starts/);
  });

  it("rejects unknown groups and topics with the choices, and a force that is not a boolean", () => {
    expect(rejection({ group: "H", to: "latest" }).message).toMatch(/faults\.0\.group.*groups are: "?G/);
    expect(rejection({ topic: "U", to: "latest" }).message).toMatch(/faults\.0\.topic.*topics are: "?T/);
    expect(rejection({ to: "latest", force: "yes" }).message).toContain("faults.0.force");
    expect(rejection({ to: "latest", target: "G" }).message).toContain("target");
  });
});
