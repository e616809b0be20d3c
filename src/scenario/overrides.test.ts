import { describe, expect, it } from "vitest";
import { InputError } from "./errors.ts";
import { applySets, parseSet } from "./overrides.ts";

/** The CLI tests' tiny scenario (src/cli/testEnv.ts), as parsed JSON. */
const TINY_SCENARIO = {
  $schema: "./schema.json",
  name: "tiny",
  description: "ten seconds, one broker, one group",
  duration: "10s",
  brokers: [{ name: "broker-a" }],
  topics: [{ name: "TopicTest", brokers: ["broker-a"], queuesPerBroker: 4, produce: { rate: 200 } }],
  groups: [{ name: "G1", instances: 2, subscribe: { TopicTest: "*" }, config: { pullBatchSize: 32 } }],
};

function badInput(fn: () => unknown): InputError {
  try {
    fn();
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error("expected an InputError");
}

describe("parseSet", () => {
  it("parses the value as JSON when it is JSON, else keeps the text", () => {
    expect(parseSet("groups.0.config.pullThresholdForQueue=200")).toEqual({ path: "groups.0.config.pullThresholdForQueue", keys: ["groups", "0", "config", "pullThresholdForQueue"], value: 200 });
    expect(parseSet("duration=30s").value).toBe("30s");
    expect(parseSet('duration="30s"').value).toBe("30s");
    expect(parseSet("x=true").value).toBe(true);
    expect(parseSet('network.latency={"dist":"exponential","mean":"1ms"}').value).toEqual({ dist: "exponential", mean: "1ms" });
    expect(parseSet("description=a=b").value).toBe("a=b");
    expect(parseSet("description=").value).toBe("");
  });

  it("rejects a number JSON reads as Infinity (1e999), at the --set, as not a finite number", () => {
    expect(badInput(() => parseSet("topics.0.produce.rate=1e999")).message).toBe(
      '--set topics.0.produce.rate: "1e999" is not a finite number (JSON numbers end at ±1.8e308)',
    );
    expect(badInput(() => parseSet("topics.0.produce.rate=-1e400")).message).toMatch(/"-1e400" is not a finite number/);
    expect(badInput(() => parseSet('groups.0.listener={"consumeTime":{"dist":"const","value":[1e999]}}')).message).toBe(
      "--set groups.0.listener: the value holds a number that is not a finite number (JSON numbers end at ±1.8e308)",
    );
    expect(parseSet("topics.0.produce.rate=1e300").value).toBe(1e300);
  });

  it("rejects a missing '=' and empty path segments", () => {
    expect(badInput(() => parseSet("seed")).message).toMatch(/^--set seed: expected path=value/);
    expect(badInput(() => parseSet("=1")).message).toMatch(/the path must be dot-separated keys/);
    expect(badInput(() => parseSet("groups..name=x")).message).toMatch(/the path must be dot-separated keys/);
  });
});

describe("applySets", () => {
  const sets = (...args: string[]) => args.map(parseSet);

  it("sets nested fields and new keys without touching the input", () => {
    const raw = structuredClone(TINY_SCENARIO);
    const out = applySets(raw, sets("groups.0.config.pullThresholdForQueue=200", "topics.0.produce.rate=50", "seed=9")) as any;
    expect(out.groups[0].config).toEqual({ pullBatchSize: 32, pullThresholdForQueue: 200 });
    expect(out.topics[0].produce.rate).toBe(50);
    expect(out.seed).toBe(9);
    expect(raw).toEqual(TINY_SCENARIO);
  });

  it("applies in order, so a later --set wins", () => {
    expect((applySets({ a: 1 }, sets("a=2", "a=3")) as any).a).toBe(3);
  });

  it("a missing intermediate object is created, as in groups.0.config.pullThresholdForQueue=200", () => {
    const out = applySets(TINY_SCENARIO, sets("groups.0.listener.consumeTime=5")) as any;
    expect(out.groups[0].listener).toEqual({ consumeTime: 5 });
    expect((TINY_SCENARIO as any).groups[0].listener).toBeUndefined(); // the input is not mutated
  });

  it("a path through a value that is not an object or list is an error", () => {
    const e = badInput(() => applySets(TINY_SCENARIO, sets("groups.0.name.x=1")));
    expect(e.message).toBe('--set groups.0.name.x: groups.0.name is a string ("G1"), not an object or a list');
  });

  it("an out-of-range or non-numeric list index is an error", () => {
    expect(badInput(() => applySets(TINY_SCENARIO, sets("groups.1.name=G2"))).message).toBe(
      "--set groups.1.name: groups.1: no such entry; groups is a list of 1, indexes 0 to 0",
    );
    expect(badInput(() => applySets(TINY_SCENARIO, sets("groups.first.name=G2"))).message).toMatch(/^--set groups.first.name: groups.first: no such entry/);
    expect(badInput(() => applySets(TINY_SCENARIO, sets("brokers.-1=1"))).message).toMatch(/no such entry/);
  });
});
