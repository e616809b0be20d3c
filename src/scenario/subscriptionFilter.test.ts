// Subscription expressions and message properties as the scenario reads them (subscriptionFilter.ts,
// messageProperties.ts): tag hash codes as Java computes them, the { "sql": … } form, properties.
import { describe, expect, it } from "vitest";
import { normalizeScenario } from "./normalize.ts";
import { javaStringHashCode, tagCodeSet, tagsCodeOf } from "./subscriptionFilter.ts";
import { propertyKey, propertyValue } from "./messageProperties.ts";
import { rejection } from "./testRejection.ts";

type Json = Record<string, any>;

function scenario(topic: Json = {}, subscribe: unknown = "*"): Json {
  return {
    name: "f",
    brokers: [{ name: "broker-a" }],
    topics: [{ name: "T", brokers: ["broker-a"], produce: { rate: 1 }, ...topic }],
    groups: [{ name: "G", subscribe: { T: subscribe } }],
  };
}


describe("javaStringHashCode: java.lang.String#hashCode", () => {
  it("is s[0]·31^(n−1) + … + s[n−1] in 32-bit arithmetic", () => {
    // "Aa": 65·31 + 97 = 2112; "BB": 66·31 + 66 = 2112 — the classic collision.
    expect(javaStringHashCode("Aa")).toBe(2112);
    expect(javaStringHashCode("BB")).toBe(2112);
    // "TagA": ((84·31 + 97)·31 + 103)·31 + 65 = (83 834)·31 + 65 = 2 598 919.
    expect(javaStringHashCode("TagA")).toBe(2598919);
    // The empty string hashes to 0; a long string wraps: "polygenelubricants" is Integer.MIN_VALUE.
    expect(javaStringHashCode("")).toBe(0);
    expect(javaStringHashCode("polygenelubricants")).toBe(-2147483648);
  });

  it("a message without a tag has tagsCode 0 (tagsString2tagsCode)", () => {
    expect(tagsCodeOf(null)).toBe(0);
    expect(tagsCodeOf("")).toBe(0);
    expect(tagsCodeOf("Aa")).toBe(2112);
  });
});

describe("tagCodeSet: SubscriptionData#codeSet", () => {
  it("holds the hash codes of the trimmed tags; \"*\" has none", () => {
    expect(tagCodeSet("*")).toBeNull();
    expect(tagCodeSet(" Aa || BB ")).toEqual(new Set([2112]));
    expect(tagCodeSet("TagA||Aa")).toEqual(new Set([2598919, 2112]));
  });

  it("is set beside the tag set by normalizeScenario, unknown tags included", () => {
    const m = normalizeScenario(scenario({ produce: { rate: 1, tags: { Aa: 1 } } }, "Aa || BB"));
    const sub = m.groups[0]!.subscriptions[0]!;
    expect(sub.codeSet).toEqual(new Set([2112]));
    expect(sub.tagSet!.has(0)).toBe(true); // "Aa" is the topic's tag 0
    expect(sub.sql).toBeUndefined();
  });
});

describe("normalizeScenario: { \"sql\": … } subscriptions", () => {
  it("keeps the text, with no tag set for the client to re-check", () => {
    const sub = normalizeScenario(scenario({}, { sql: "a > 5 AND region = 'eu'" })).groups[0]!.subscriptions[0]!;
    expect(sub).toEqual({ topic: 0, expression: "a > 5 AND region = 'eu'", tagSet: null, sql: "a > 5 AND region = 'eu'" });
  });

  it("rejects an empty expression, other keys and other types, naming the field", () => {
    expect(rejection(scenario({}, { sql: "  " })).message).toMatch(/^groups\.0\.subscribe\.T\.sql: must be a SQL92 expression/);
    expect(rejection(scenario({}, { sql: "a > 1", type: "SQL92" })).path).toBe("groups.0.subscribe.T.type");
    expect(rejection(scenario({}, 5)).message).toMatch(/^groups\.0\.subscribe\.T: must be "\*" or tags joined by "\|\|", or \{ "sql"/);
  });

  it("rejects an expression longer than 4096 characters", () => {
    expect(rejection(scenario({}, { sql: `a = ${"1".repeat(4100)}` })).message).toMatch(/4104 characters long; at most 4096/);
  });
});

describe("normalizeScenario: produce.properties", () => {
  it("reads number distributions and weighted string values", () => {
    const m = normalizeScenario(scenario({ produce: { rate: 1, properties: { a: { dist: "uniform", min: 0, max: 10 }, region: { values: { eu: 1, us: 3 } } } } }));
    const props = m.topics[0]!.produce!.properties!;
    expect(props.map((p) => [p.name, p.kind])).toEqual([["a", "number"], ["region", "string"]]);
    expect(props[1]).toMatchObject({ values: ["eu", "us"], cum: [0.25, 1] });
  });

  it("leaves a producer without properties as it was", () => {
    expect(normalizeScenario(scenario()).topics[0]!.produce!.properties).toBeUndefined();
  });

  it("rejects bad names, empty values and zero weights, naming the field", () => {
    const bad = (properties: unknown) => rejection(scenario({ produce: { rate: 1, properties } })).message;
    expect(bad({})).toMatch(/^topics\.0\.produce\.properties: must map property names/);
    expect(bad({ "1a": 3 })).toMatch(/^topics\.0\.produce\.properties\.1a: property name "1a" must start with a letter/);
    expect(bad({ r: { values: {} } })).toMatch(/^topics\.0\.produce\.properties\.r\.values: must map each value/);
    expect(bad({ r: { values: { eu: 0 } } })).toMatch(/at least one weight must be above 0/);
    expect(bad({ r: { values: { eu: 1 }, other: 1 } })).toMatch(/^topics\.0\.produce\.properties\.r\.other: unknown key/);
    expect(bad({ a: { dist: "nope" } })).toMatch(/^topics\.0\.produce\.properties\.a\.dist: unknown distribution/);
  });
});

describe("propertyValue: derived per message, never stored", () => {
  const m = normalizeScenario(scenario({ produce: { rate: 1, properties: { a: { dist: "uniform", min: 0, max: 10 }, region: { values: { eu: 1, us: 99 } } } } }));
  const [a, region] = m.topics[0]!.produce!.properties!;

  it("is the same on every read and ignores the key's generation", () => {
    const key = 3 * 4294967296 + 17;
    expect(propertyValue(a!, 0, 1, key)).toBe(propertyValue(a!, 0, 1, key));
    expect(propertyKey(key + 2 * 281474976710656)).toBe(key);
  });

  it("follows the weights: 'eu' on about 1 % of 100 000 messages", () => {
    // Binomial(100 000, 0.01): mean 1 000, sd 31.5; 4 sd either side.
    let eu = 0;
    for (let o = 0; o < 100_000; o++) if (propertyValue(region!, 1, 7, o) === "eu") eu++;
    expect(eu).toBeGreaterThan(1000 - 4 * 31.5);
    expect(eu).toBeLessThan(1000 + 4 * 31.5);
  });

  it("draws numbers from the distribution, within its range", () => {
    for (let o = 0; o < 1000; o++) {
      const v = propertyValue(a!, 0, 7, o) as number;
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThanOrEqual(10);
    }
  });
});
