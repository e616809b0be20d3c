import { describe, expect, it } from "vitest";
import { buildVariant, parseParam } from "../sweep/grid.ts";
import { normalizeScenario } from "./normalize.ts";
import { applySets, parseSet } from "./overrides.ts";
import { rejection } from "./testRejection.ts";

type Json = Record<string, any>;

function scenario(config: Json): Json {
  return {
    name: "mib",
    brokers: [{ name: "broker-a" }],
    topics: [{ name: "TopicTest", brokers: ["broker-a"] }],
    groups: [{ name: "G1", subscribe: { TopicTest: "*" }, config }],
  };
}

const configOf = (input: unknown) => normalizeScenario(input).groups[0]!.config;


describe("consumer config: MiB settings take size strings", () => {
  it("reads pullThresholdSizeForQueue and pullThresholdSizeForTopic as sizes, stored in MiB as RocketMQ keeps them", () => {
    // "100MiB" = 100; "1GiB" = 1 024 MiB; "2048KiB" = 2 MiB; "10GiB" = 10 240 MiB.
    expect(configOf(scenario({ pullThresholdSizeForQueue: "100MiB" })).pullThresholdSizeForQueue).toBe(100);
    expect(configOf(scenario({ pullThresholdSizeForQueue: "1GiB" })).pullThresholdSizeForQueue).toBe(1024);
    expect(configOf(scenario({ pullThresholdSizeForQueue: "2048KiB" })).pullThresholdSizeForQueue).toBe(2);
    expect(configOf(scenario({ pullThresholdSizeForTopic: "10GiB" })).pullThresholdSizeForTopic).toBe(10_240);
  });

  it("keeps numbers as MiB, and -1 (off) for the topic threshold", () => {
    const config = configOf(scenario({ pullThresholdSizeForQueue: 64, pullThresholdSizeForTopic: -1 }));
    expect([config.pullThresholdSizeForQueue, config.pullThresholdSizeForTopic]).toEqual([64, -1]);
  });

  it("an unknown unit: names the field, its unit (MiB) and the accepted suffixes", () => {
    const e = rejection(scenario({ pullThresholdSizeForQueue: "100MB" }));
    expect(e.path).toBe("groups.0.config.pullThresholdSizeForQueue");
    expect(e.reason).toMatch(/"100MB" is not a size .*; this setting is in MiB: use a number of MiB \(e\.g\. 100\) or a string with a unit B, KiB, MiB, GiB or TiB/);
  });

  it("a size out of range or not a whole number of MiB is refused with the MiB it came to", () => {
    // checkConfig's range for pullThresholdSizeForQueue is [1, 1024]: 2 GiB = 2 048 MiB is above it.
    expect(rejection(scenario({ pullThresholdSizeForQueue: "2GiB" })).reason).toBe('"2GiB" is 2048 MiB, out of range [1, 1024] MiB');
    // The topic threshold's range is [1, 102 400] MiB for a size (−1 is written as a number): 0 B is below it.
    expect(rejection(scenario({ pullThresholdSizeForTopic: "0MiB" })).reason).toBe('"0MiB" is 0 MiB, out of range [1, 102400] MiB');
    expect(rejection(scenario({ pullThresholdSizeForQueue: "512KiB" })).reason).toMatch(/"512KiB" is 0\.5 MiB, but this setting is a whole number of MiB/);
  });

  it("other settings do not take size strings", () => {
    expect(rejection(scenario({ pullThresholdForQueue: "100MiB" })).reason).toMatch(/must be a number in \[1, 65535\]/);
  });
});

describe("MiB sizes from the command line", () => {
  it("--set groups.0.config.pullThresholdSizeForQueue=256MiB", () => {
    const raw = applySets(scenario({}), [parseSet("groups.0.config.pullThresholdSizeForQueue=256MiB")]);
    expect(configOf(raw).pullThresholdSizeForQueue).toBe(256);
  });

  it("--param groups.0.config.pullThresholdSizeForQueue=64MiB,1GiB: each point's variant reads as MiB", () => {
    const param = parseParam("groups.0.config.pullThresholdSizeForQueue=64MiB,1GiB");
    expect(param.values).toEqual(["64MiB", "1GiB"]);
    const mib = param.values.map((v) => configOf(buildVariant(scenario({}), { [param.path]: v })).pullThresholdSizeForQueue);
    expect(mib).toEqual([64, 1024]);
  });
});
