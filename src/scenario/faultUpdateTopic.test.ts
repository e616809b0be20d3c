// The updateTopic fault and the topic's readQueueNums / writeQueueNums / perm fields: what they normalise
// to, and the errors bad input gets (each names the field and the allowed values or range).
import { describe, expect, it } from "vitest";
import { InputError } from "./errors.ts";
import { normalizeScenario } from "./normalize.ts";
import type { ScenarioInput } from "./types.ts";

function scenario(o: { topic?: Record<string, unknown>; faults?: unknown[] } = {}): ScenarioInput {
  return {
    name: "ut", duration: "5m",
    brokers: [{ name: "broker-a" }, { name: "broker-b" }, { name: "broker-c" }],
    topics: [{ name: "T", brokers: ["broker-a", "broker-b"], queuesPerBroker: 8, ...o.topic }],
    groups: [{ name: "G", subscribe: { T: "*" } }],
    faults: o.faults ?? [],
  } as ScenarioInput;
}
const fault = (f: Record<string, unknown>) => scenario({ faults: [{ kind: "updateTopic", at: "1m", target: "T@broker-a", ...f }] });

function errorOf(input: ScenarioInput): InputError {
  try {
    normalizeScenario(input);
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error("no error");
}

describe("updateTopic fault", () => {
  it("normalises to the topic, the broker and the fields given (the others null: unchanged)", () => {
    const m = normalizeScenario(fault({ writeQueueNums: 4, perm: "r" }));
    expect(m.faults[0]).toMatchObject({ kind: "updateTopic", atUs: 60_000_000, topic: 0, broker: 0, readQueueNums: null, writeQueueNums: 4, perm: 4 });
    expect(normalizeScenario(fault({ perm: "none" })).faults[0]).toMatchObject({ perm: 0 });
    expect(normalizeScenario(fault({ perm: "w" })).faults[0]).toMatchObject({ perm: 2 });
    expect(normalizeScenario(fault({ readQueueNums: 1024, perm: "rw" })).faults[0]).toMatchObject({ readQueueNums: 1024, perm: 6 });
  });

  it("needs at least one of the three, and says which they are", () => {
    const e = errorOf(fault({}));
    expect(e.path).toBe("faults.0");
    expect(e.reason).toMatch(/readQueueNums \(1–1024\).*writeQueueNums \(1–1024\).*perm/);
  });

  it("queue counts must be whole numbers 1..1024", () => {
    for (const [v, msg] of [[0, /out of range \[1, 1024\]/], [1025, /out of range \[1, 1024\]/], [2.5, /whole number in \[1, 1024\]/], ["4", /number in \[1, 1024\]/]] as const) {
      const e = errorOf(fault({ readQueueNums: v }));
      expect(e.path).toBe("faults.0.readQueueNums");
      expect(e.reason).toMatch(msg);
    }
    expect(errorOf(fault({ writeQueueNums: 0 })).path).toBe("faults.0.writeQueueNums");
  });

  it("perm must be one of rw, r, w, none", () => {
    const e = errorOf(fault({ perm: "ro" }));
    expect(e.path).toBe("faults.0.perm");
    expect(e.reason).toMatch(/"rw".*"r".*"w".*"none"/);
  });

  it("the target must name a topic on one of its brokers", () => {
    const cases: [string, RegExp][] = [
      ["T", /must name a topic on a broker, like "TopicTest@broker-a"/],
      ["T@broker-a#1", /must name a topic on a broker/],
      ["U@broker-a", /unknown topic "U"; topics are: "?T/],
      ["T@broker-c", /topic T is not on broker "broker-c"; it is on: .*broker-a.*broker-b/],
      ["T@broker-z", /topic T is not on broker "broker-z"/],
    ];
    for (const [target, msg] of cases) {
      const e = errorOf(fault({ target, readQueueNums: 4 }));
      expect(e.path).toBe("faults.0.target");
      expect(e.reason).toMatch(msg);
    }
  });

  it("rejects unknown keys, suggesting the right one", () => {
    const e = errorOf(fault({ readQueueNum: 4 }));
    expect(e.reason).toMatch(/did you mean "readQueueNums"/);
  });
});

describe("a topic's readQueueNums / writeQueueNums / perm", () => {
  it("absent: no config (queuesPerBroker queues, read and write)", () => {
    expect(normalizeScenario(scenario()).topics[0]!.config).toBeUndefined();
  });

  it("any one given: the others default to queuesPerBroker and rw", () => {
    expect(normalizeScenario(scenario({ topic: { writeQueueNums: 4 } })).topics[0]!.config).toEqual({ readQueueNums: 8, writeQueueNums: 4, perm: 6 });
    expect(normalizeScenario(scenario({ topic: { perm: "w" } })).topics[0]!.config).toEqual({ readQueueNums: 8, writeQueueNums: 8, perm: 2 });
  });

  it("bad values name the topic field", () => {
    expect(errorOf(scenario({ topic: { readQueueNums: 0 } })).path).toBe("topics.0.readQueueNums");
    expect(errorOf(scenario({ topic: { writeQueueNums: 2000 } })).reason).toMatch(/out of range \[1, 1024\]/);
    expect(errorOf(scenario({ topic: { perm: "x" } })).path).toBe("topics.0.perm");
  });
});
