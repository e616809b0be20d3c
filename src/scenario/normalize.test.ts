import { describe, expect, it } from "vitest";
import { InputError } from "./errors.ts";
import { BROKER_CONFIG_DEFAULTS, CONSUMER_CONFIG_DEFAULTS } from "./defaults.ts";
import { normalizeScenario } from "./normalize.ts";
import { checkKeys, nearest, readEnum, readInt } from "./read.ts";
import { rejection } from "./testRejection.ts";

// Test inputs are free-form JSON, edited in place; `any` keeps the edits short.
type Json = Record<string, any>;

/** The smallest valid scenario: one broker, one topic on it, one group subscribed to everything. */
function minimal(): Json {
  return {
    name: "minimal",
    brokers: [{ name: "broker-a" }],
    topics: [{ name: "TopicTest", brokers: ["broker-a"] }],
    groups: [{ name: "G1", subscribe: { TopicTest: "*" } }],
  };
}

/** A minimal scenario changed by `edit`. */
function scenario(edit: (s: Json) => void): Json {
  const s = minimal();
  edit(s);
  return s;
}


describe("normalizeScenario defaults (src/scenario/defaults.ts)", () => {
  const model = normalizeScenario(minimal());

  it("fills scenario-level defaults: seed 1, 10 min, sample every 1 s = 1_000_000 µs, profile 4.9", () => {
    expect(model.seed).toBe(1);
    expect(model.durationUs).toBe(600_000_000);
    expect(model.sampleEveryUs).toBe(1_000_000);
    expect(model.profile).toBe("4.9");
    expect(model.description).toBe("");
    expect(model.expect).toEqual([]);
  });

  it("uses a lognormal network latency with median 300 µs", () => {
    expect(model.latency.kind).toBe("lognormal");
    expect(model.latency.quantile(0.5)).toBe(300);
  });

  it("gives a broker hotBytes = floor(0.4 × 16 GiB) and every broker config default", () => {
    const broker = model.brokers[0]!;
    expect(broker.hotBytes).toBe(Math.floor(0.4 * 16 * 1024 ** 3));
    expect(broker.hotBytes).toBe(6_871_947_673);
    expect(broker.config).toEqual(BROKER_CONFIG_DEFAULTS);
    expect(broker.config).not.toBe(BROKER_CONFIG_DEFAULTS); // a copy, so a scenario cannot change the defaults
  });

  it("gives a broker maxMessageSize = 4 MiB = 4194304 bytes, RocketMQ's MessageStoreConfig default", () => {
    expect(model.brokers[0]!.maxMessageSize).toBe(4_194_304);
  });

  it("parses the default delay levels into 18 levels from 1 s to 2 h, 1-based (spec §9.2)", () => {
    const levels = model.brokers[0]!.delayLevelsUs;
    expect(levels).toHaveLength(19);
    expect(levels[1]).toBe(1_000_000);
    expect(levels[3]).toBe(10_000_000);
    expect(levels[18]).toBe(7_200_000_000);
  });

  it("gives a topic 8 queues per broker, no simple retention (the store's files decide), no producer and no tags", () => {
    const topic = model.topics[0]!;
    expect(topic.brokers).toEqual([0]);
    expect(topic.queuesPerBroker).toBe(8);
    expect(topic.retentionUs).toBe(Infinity);
    expect(topic.produce).toBeNull();
    expect(topic.tags).toEqual([]);
  });

  it("gives a group one instance, CONSUME_FROM_LAST_OFFSET, a timestamp 30 min back and start at 0", () => {
    const group = model.groups[0]!;
    expect(group.instances).toBe(1);
    expect(group.consumeFromWhere).toBe("CONSUME_FROM_LAST_OFFSET");
    expect(group.consumeTimestampBeforeUs).toBe(30 * 60_000_000);
    expect(group.startAtUs).toBe(0);
    expect(group.subscriptions).toEqual([{ topic: 0, expression: "*", tagSet: null }]);
  });

  it("gives a group every consumer config default: pullThresholdForQueue 1000, consumeThreadMin 20, ... (spec §0.1)", () => {
    const config = model.groups[0]!.config;
    expect(config).toEqual(CONSUMER_CONFIG_DEFAULTS);
    expect(config.pullThresholdForQueue).toBe(1000);
    expect(config.consumeThreadMin).toBe(20);
    expect(config.pullThresholdSizeForQueue).toBe(100);
    expect(config.consumeConcurrentlyMaxSpan).toBe(2000);
    expect(config.pullBatchSize).toBe(32);
    expect(config.pullTimeDelayMillsWhenException).toBe(1000);
  });

  it("gives a listener an exponential 5 ms consume time and no failures", () => {
    const group = model.groups[0]!;
    expect(group.consumeTime.kind).toBe("exponential");
    expect(group.consumeTime.mean).toBe(5000);
    expect([group.failureProbability, group.poisonFraction, group.hangFraction]).toEqual([0, 0, 0]);
  });

  it("keeps the input for reports", () => {
    const input = minimal();
    expect(normalizeScenario(input).input).toBe(input);
  });
});

describe("normalizeScenario explicit values", () => {
  it("reads durations, sizes, tags, produce and config overrides", () => {
    const model = normalizeScenario(
      scenario((s) => {
        s.seed = 7;
        s.duration = "2m";
        s.sampleEvery = 500; // ms
        s.profile = "5.x";
        s.brokers[0].hotBytes = "1GiB";
        s.brokers[0].config = { maxTransferCountOnMessageInDisk: 4, longPollingEnable: false };
        s.topics[0].queuesPerBroker = 4;
        s.topics[0].produce = {
          rate: 100,
          tags: { TagA: 3, TagB: 1 },
          queueSelect: { weights: [1, 0, 0, 1] },
          rateChanges: [{ at: "10s", rate: 0 }, { at: "20s", rate: 50 }],
        };
        s.groups[0].subscribe = { TopicTest: "TagB || TagA" };
        s.groups[0].config = { pullThresholdForTopic: 1024, maxReconsumeTimes: 0, consumeThreadMin: 5, consumeThreadMax: 5 };
      }),
    );
    expect([model.seed, model.durationUs, model.sampleEveryUs, model.profile]).toEqual([7, 120_000_000, 500_000, "5.x"]);
    expect(model.brokers[0]!.hotBytes).toBe(1024 ** 3);
    expect(model.brokers[0]!.config.maxTransferCountOnMessageInDisk).toBe(4);
    expect(model.brokers[0]!.config.longPollingEnable).toBe(false);
    expect(model.topics[0]!.tags).toEqual(["TagA", "TagB"]);
    expect(model.topics[0]!.produce!.tagWeights).toEqual([3, 1]);
    expect(model.topics[0]!.produce!.rateChanges).toEqual([{ atUs: 10_000_000, rate: 0 }, { atUs: 20_000_000, rate: 50 }]);
    expect(model.groups[0]!.subscriptions[0]!.tagSet).toEqual(new Set([1, 0]));
    expect(model.groups[0]!.config.pullThresholdForTopic).toBe(1024);
    expect(model.groups[0]!.config.maxReconsumeTimes).toBe(0);
  });

  it("accepts maxReconsumeTimes 0: the first failure goes straight to the DLQ (spec §9.2)", () => {
    const model = normalizeScenario(scenario((s) => (s.groups[0].config = { maxReconsumeTimes: 0 })));
    expect(model.groups[0]!.config.maxReconsumeTimes).toBe(0);
  });

  it("accepts -1 for the topic thresholds (off)", () => {
    const model = normalizeScenario(scenario((s) => (s.groups[0].config = { pullThresholdForTopic: -1, pullThresholdSizeForTopic: -1 })));
    expect(model.groups[0]!.config.pullThresholdForTopic).toBe(-1);
    expect(model.groups[0]!.config.pullThresholdSizeForTopic).toBe(-1);
  });

  it("accepts the boundary values of RocketMQ's checkConfig ranges (spec §15.5)", () => {
    const model = normalizeScenario(
      scenario((s) => (s.groups[0].config = {
        pullThresholdForQueue: 65535, pullThresholdForTopic: 6_553_500, pullThresholdSizeForQueue: 1024, pullThresholdSizeForTopic: 102_400,
      })),
    );
    expect(model.groups[0]!.config.pullThresholdForQueue).toBe(65535);
    expect(normalizeScenario(scenario((s) => (s.groups[0].config = { pullThresholdForQueue: 1 }))).groups[0]!.config.pullThresholdForQueue).toBe(1);
  });

  it("maps an unknown tag in a subscription to an index no message carries", () => {
    const model = normalizeScenario(
      scenario((s) => {
        s.topics[0].produce = { rate: 1, tags: { TagA: 1 } };
        s.groups[0].subscribe = { TopicTest: "TagA || Nope" };
      }),
    );
    const set = model.groups[0]!.subscriptions[0]!.tagSet!;
    expect(set.has(0)).toBe(true);
    expect(set.size).toBe(2);
    expect([...set].filter((i) => i !== 0).every((i) => i < -1)).toBe(true); // −1 means "no tag"
  });
});

describe("normalizeScenario rejects bad input with an InputError naming the field", () => {
  it("not an object at all", () => {
    expect(rejection([])).toBeInstanceOf(InputError);
    expect(rejection("x").message).toMatch(/must be a JSON object/);
  });

  it("unknown top-level key, with a did-you-mean", () => {
    const e = rejection(scenario((s) => (s.grups = [])));
    expect(e.path).toBe("grups");
    expect(e.message).toMatch(/unknown key "grups" — did you mean "groups"\?/);
  });

  it("unknown consumer config key, with a did-you-mean", () => {
    const e = rejection(scenario((s) => (s.groups[0].config = { pullThresholdForQeue: 10 })));
    expect(e.path).toBe("groups.0.config.pullThresholdForQeue");
    expect(e.message).toMatch(/did you mean "pullThresholdForQueue"\?/);
  });

  it("unknown broker config key, with a did-you-mean", () => {
    const e = rejection(scenario((s) => (s.brokers[0].config = { longPolingEnable: true })));
    expect(e.path).toBe("brokers.0.config.longPolingEnable");
    expect(e.message).toMatch(/did you mean "longPollingEnable"\?/);
  });

  it("unknown key far from every allowed one: no guess, but the allowed keys are listed", () => {
    const e = rejection(scenario((s) => (s.topics[0].zzzzzzzz = 1)));
    expect(e.path).toBe("topics.0.zzzzzzzz");
    expect(e.message).not.toMatch(/did you mean/);
    expect(e.message).toMatch(/allowed: name, brokers, queuesPerBroker, retention, produce/);
  });

  it("pullThresholdForQueue 65536 → range [1, 65535] (spec §15.5)", () => {
    const e = rejection(scenario((s) => (s.groups[0].config = { pullThresholdForQueue: 65536 })));
    expect(e.path).toBe("groups.0.config.pullThresholdForQueue");
    expect(e.message).toMatch(/\[1, 65535\]/);
  });

  it("pullThresholdForQueue 0 → range [1, 65535]", () => {
    expect(rejection(scenario((s) => (s.groups[0].config = { pullThresholdForQueue: 0 }))).message).toMatch(/\[1, 65535\]/);
  });

  it("pullThresholdForTopic 6553501 → range [1, 6553500] or -1 (spec §15.5)", () => {
    const e = rejection(scenario((s) => (s.groups[0].config = { pullThresholdForTopic: 6_553_501 })));
    expect(e.path).toBe("groups.0.config.pullThresholdForTopic");
    expect(e.message).toMatch(/\[1, 6553500\]/);
    expect(e.message).toMatch(/-1/);
  });

  it("pullThresholdForTopic 0 and -2 are rejected (only -1 means off)", () => {
    for (const v of [0, -2]) {
      const e = rejection(scenario((s) => (s.groups[0].config = { pullThresholdForTopic: v })));
      expect(e.path).toBe("groups.0.config.pullThresholdForTopic");
      expect(e.message).toMatch(/\[1, 6553500\]/);
    }
  });

  it("pullThresholdSizeForQueue 1025 → range [1, 1024] (spec §15.5)", () => {
    const e = rejection(scenario((s) => (s.groups[0].config = { pullThresholdSizeForQueue: 1025 })));
    expect(e.path).toBe("groups.0.config.pullThresholdSizeForQueue");
    expect(e.message).toMatch(/\[1, 1024\]/);
  });

  it("pullThresholdSizeForTopic 102401 → range [1, 102400] (spec §15.5)", () => {
    const e = rejection(scenario((s) => (s.groups[0].config = { pullThresholdSizeForTopic: 102_401 })));
    expect(e.path).toBe("groups.0.config.pullThresholdSizeForTopic");
    expect(e.message).toMatch(/\[1, 102400\]/);
  });

  it("a topic threshold that is not a number", () => {
    const e = rejection(scenario((s) => (s.groups[0].config = { pullThresholdSizeForTopic: "off" })));
    expect(e.path).toBe("groups.0.config.pullThresholdSizeForTopic");
    expect(e.message).toMatch(/"off"/);
  });

  it('consumeThreadMin > consumeThreadMax → RocketMQ\'s "consumeThreadMin (10) is larger than consumeThreadMax (9)" (spec §15.5)', () => {
    const e = rejection(scenario((s) => (s.groups[0].config = { consumeThreadMin: 10, consumeThreadMax: 9 })));
    expect(e.path).toBe("groups.0.config.consumeThreadMin");
    expect(e.reason).toBe("consumeThreadMin (10) is larger than consumeThreadMax (9)");
  });

  it("consumeThreadMin above the default max of 20 alone is rejected the same way", () => {
    expect(rejection(scenario((s) => (s.groups[0].config = { consumeThreadMin: 21 }))).reason).toBe(
      "consumeThreadMin (21) is larger than consumeThreadMax (20)",
    );
  });

  it("consumeThreadMin 0 → range [1, 1000] (spec §15.5)", () => {
    expect(rejection(scenario((s) => (s.groups[0].config = { consumeThreadMin: 0 }))).message).toMatch(/\[1, 1000\]/);
  });

  it("negative produce rate → range [0, 10000000]", () => {
    const e = rejection(scenario((s) => (s.topics[0].produce = { rate: -5 })));
    expect(e.path).toBe("topics.0.produce.rate");
    expect(e.message).toMatch(/-5 is out of range \[0, 10000000\]/);
  });

  it("missing produce rate", () => {
    const e = rejection(scenario((s) => (s.topics[0].produce = {})));
    expect(e.path).toBe("topics.0.produce.rate");
    expect(e.message).toBe("topics.0.produce.rate: missing; expected a number in [0, 10000000]");
  });

  it("malformed duration, with the accepted forms", () => {
    const e = rejection(scenario((s) => (s.duration = "10 minutes")));
    expect(e.path).toBe("duration");
    expect(e.message).toMatch(/"50ms", "1\.5s", "10m"/);
  });

  it("zero duration", () => {
    const e = rejection(scenario((s) => (s.duration = 0)));
    expect(e.path).toBe("duration");
    expect(e.message).toMatch(/greater than 0/);
  });

  it("malformed size, with the accepted forms", () => {
    const e = rejection(scenario((s) => (s.brokers[0].hotBytes = "12 parsecs")));
    expect(e.path).toBe("brokers.0.hotBytes");
    expect(e.message).toMatch(/"1KiB", "100MiB"/);
  });

  it("decimal size unit, with a note that only 1024-based units are accepted", () => {
    const e = rejection(scenario((s) => (s.brokers[0].hotBytes = "6GB")));
    expect(e.path).toBe("brokers.0.hotBytes");
    expect(e.message).toMatch(/only the 1024-based units/);
  });

  it("unknown broker in a topic, listing the brokers there are", () => {
    const e = rejection(scenario((s) => (s.topics[0].brokers = ["broker-a", "broker-z"])));
    expect(e.path).toBe("topics.0.brokers.1");
    expect(e.message).toMatch(/unknown broker "broker-z"; brokers are: broker-a/);
  });

  it("a topic listing the same broker twice", () => {
    const e = rejection(scenario((s) => (s.topics[0].brokers = ["broker-a", "broker-a"])));
    expect(e.path).toBe("topics.0.brokers");
    expect(e.message).toMatch(/twice/);
  });

  it("a topic with no brokers", () => {
    expect(rejection(scenario((s) => (s.topics[0].brokers = []))).path).toBe("topics.0.brokers");
  });

  it("unknown topic in a subscription, listing the topics there are", () => {
    const e = rejection(scenario((s) => (s.groups[0].subscribe = { Nope: "*" })));
    expect(e.path).toBe("groups.0.subscribe.Nope");
    expect(e.message).toMatch(/unknown topic "Nope"; topics are: TopicTest/);
  });

  it("a group subscribing to nothing", () => {
    const e = rejection(scenario((s) => (s.groups[0].subscribe = {})));
    expect(e.path).toBe("groups.0.subscribe");
    expect(e.message).toMatch(/at least one topic/);
  });

  it("empty groups list", () => {
    const e = rejection(scenario((s) => (s.groups = [])));
    expect(e.path).toBe("groups");
    expect(e.message).toMatch(/non-empty list/);
  });

  it("empty brokers list", () => {
    const e = rejection(scenario((s) => (s.brokers = [])));
    expect(e.path).toBe("brokers");
    expect(e.message).toMatch(/non-empty list/);
  });

  it("empty topics list", () => {
    expect(rejection(scenario((s) => (s.topics = []))).path).toBe("topics");
  });

  it("duplicate broker, topic and group names, naming the second one", () => {
    const b = rejection(scenario((s) => s.brokers.push({ name: "broker-a" })));
    expect(b.path).toBe("brokers.1.name");
    expect(b.message).toMatch(/"broker-a" is used twice/);
    const t = rejection(scenario((s) => s.topics.push({ name: "TopicTest", brokers: ["broker-a"] })));
    expect(t.path).toBe("topics.1.name");
    const g = rejection(scenario((s) => s.groups.push({ name: "G1", subscribe: { TopicTest: "*" } })));
    expect(g.path).toBe("groups.1.name");
  });

  it("bad profile, listing the profiles and guessing the nearest", () => {
    const e = rejection(scenario((s) => (s.profile = "5.0")));
    expect(e.path).toBe("profile");
    expect(e.message).toMatch(/"5\.0" is not one of "4\.7", "4\.9", "5\.x" — did you mean "5\.x"\?/);
  });

  it("non-integer instances → a whole number in [1, 2048]", () => {
    const e = rejection(scenario((s) => (s.groups[0].instances = 1.5)));
    expect(e.path).toBe("groups.0.instances");
    expect(e.message).toMatch(/whole number in \[1, 2048\], got 1\.5/);
  });

  it("zero instances", () => {
    expect(rejection(scenario((s) => (s.groups[0].instances = 0))).message).toMatch(/\[1, 2048\]/);
  });

  it("wrong types: a string seed, a number name, a boolean where a number goes, a string where a boolean goes", () => {
    const seed = rejection(scenario((s) => (s.seed = "1")));
    expect(seed.path).toBe("seed");
    expect(seed.message).toMatch(/must be a number in \[0, 4294967295\], got "1"/);
    const name = rejection(scenario((s) => (s.name = 5)));
    expect(name.path).toBe("name");
    expect(name.message).toMatch(/non-empty string, got 5/);
    const thresh = rejection(scenario((s) => (s.groups[0].config = { pullBatchSize: true })));
    expect(thresh.path).toBe("groups.0.config.pullBatchSize");
    expect(thresh.message).toMatch(/\[1, 1024\], got true/);
    const bool = rejection(scenario((s) => (s.groups[0].config = { postSubscriptionWhenPull: "yes" })));
    expect(bool.path).toBe("groups.0.config.postSubscriptionWhenPull");
    expect(bool.message).toMatch(/must be true or false, got "yes"/);
    const brokerBool = rejection(scenario((s) => (s.brokers[0].config = { longPollingEnable: 1 })));
    expect(brokerBool.path).toBe("brokers.0.config.longPollingEnable");
    expect(brokerBool.message).toMatch(/must be true or false/);
  });

  it("wrong container types: brokers not a list, a group not an object, config not an object", () => {
    expect(rejection(scenario((s) => (s.brokers = { name: "broker-a" }))).path).toBe("brokers");
    expect(rejection(scenario((s) => (s.groups = ["G1"]))).path).toBe("groups.0");
    expect(rejection(scenario((s) => (s.groups[0].config = [1]))).path).toBe("groups.0.config");
    expect(rejection(scenario((s) => (s.network = "fast"))).path).toBe("network");
  });

  it('bad tag expressions → must be "*" or tags joined by "||"', () => {
    for (const expr of ["TagA ||", "|| TagA", "Tag A", "Tag*", "", "  ", "TagA|TagB"]) {
      const e = rejection(
        scenario((s) => {
          s.topics[0].produce = { rate: 1, tags: { TagA: 1, TagB: 1 } };
          s.groups[0].subscribe = { TopicTest: expr };
        }),
      );
      expect(e.path, expr).toBe("groups.0.subscribe.TopicTest");
      expect(e.message, expr).toMatch(/"\*" or tags joined by "\|\|"/);
    }
  });

  it("a subscription expression that is not a string", () => {
    expect(rejection(scenario((s) => (s.groups[0].subscribe = { TopicTest: 1 }))).path).toBe("groups.0.subscribe.TopicTest");
  });

  it("queueSelect weights of the wrong count → one per queue (brokers × queuesPerBroker)", () => {
    const e = rejection(
      scenario((s) => {
        s.topics[0].queuesPerBroker = 4;
        s.topics[0].produce = { rate: 1, queueSelect: { weights: [1, 1, 1] } };
      }),
    );
    expect(e.path).toBe("topics.0.produce.queueSelect.weights");
    expect(e.message).toMatch(/must be 4 non-negative numbers, one per queue/);
  });

  it("queueSelect weights all zero, or negative", () => {
    const zero = rejection(scenario((s) => (s.topics[0].produce = { rate: 1, queueSelect: { weights: Array(8).fill(0) } })));
    expect(zero.message).toMatch(/at least one weight must be above 0/);
    const negative = rejection(scenario((s) => (s.topics[0].produce = { rate: 1, queueSelect: { weights: [-1, 1, 1, 1, 1, 1, 1, 1] } })));
    expect(negative.path).toBe("topics.0.produce.queueSelect.weights");
  });

  it("unknown queueSelect mode, with a did-you-mean", () => {
    const e = rejection(scenario((s) => (s.topics[0].produce = { rate: 1, queueSelect: "roundrobin" })));
    expect(e.path).toBe("topics.0.produce.queueSelect");
    expect(e.message).toMatch(/did you mean "roundRobin"/);
  });

  it("rate changes out of order", () => {
    const e = rejection(scenario((s) => (s.topics[0].produce = { rate: 1, rateChanges: [{ at: "20s", rate: 1 }, { at: "10s", rate: 2 }] })));
    expect(e.path).toBe("topics.0.produce.rateChanges.1.at");
    expect(e.message).toMatch(/later than the previous rate change/);
  });

  it("two rate changes at the same time", () => {
    const e = rejection(scenario((s) => (s.topics[0].produce = { rate: 1, rateChanges: [{ at: "10s", rate: 1 }, { at: 10_000, rate: 2 }] })));
    expect(e.path).toBe("topics.0.produce.rateChanges.1.at");
  });

  it("tags with all-zero weights, or a tag name with a forbidden character", () => {
    expect(rejection(scenario((s) => (s.topics[0].produce = { rate: 1, tags: { TagA: 0 } }))).message).toMatch(/at least one weight/);
    const pipe = rejection(scenario((s) => (s.topics[0].produce = { rate: 1, tags: { "A|B": 1 } })));
    expect(pipe.path).toBe("topics.0.produce.tags");
    expect(pipe.message).toMatch(/may not contain spaces, "\|" or "\*"/);
  });

  it("group named DEFAULT_CONSUMER (spec §15.5)", () => {
    const e = rejection(scenario((s) => (s.groups[0].name = "DEFAULT_CONSUMER")));
    expect(e.path).toBe("groups.0.name");
    expect(e.message).toMatch(/not DEFAULT_CONSUMER/);
  });

  it("names with characters RocketMQ does not allow, and topic names starting with %", () => {
    expect(rejection(scenario((s) => (s.name = "my scenario"))).path).toBe("name");
    expect(rejection(scenario((s) => (s.brokers[0].name = "broker/a"))).path).toBe("brokers.0.name");
    const retry = rejection(scenario((s) => (s.topics[0].name = "%RETRY%G1")));
    expect(retry.path).toBe("topics.0.name");
    expect(retry.message).toMatch(/not start with %/);
  });

  it("consumeFromWhere not one of the three, with a did-you-mean", () => {
    const e = rejection(scenario((s) => (s.groups[0].consumeFromWhere = "CONSUME_FROM_LAST_OFSET")));
    expect(e.path).toBe("groups.0.consumeFromWhere");
    expect(e.message).toMatch(/did you mean "CONSUME_FROM_LAST_OFFSET"/);
  });

  it("listener probability above 1 → range [0, 1]", () => {
    const e = rejection(scenario((s) => (s.groups[0].listener = { failureProbability: 1.5 })));
    expect(e.path).toBe("groups.0.listener.failureProbability");
    expect(e.message).toMatch(/\[0, 1\]/);
  });

  it("bad broker delay level", () => {
    const e = rejection(scenario((s) => (s.brokers[0].config = { messageDelayLevel: "1s 5x" })));
    expect(e.path).toBe("brokers.0.config.messageDelayLevel");
    expect(e.message).toMatch(/level 2 "5x" must look like 1s, 5m, 2h or 1d/);
  });

  it("sampleEvery below 1 ms, or so small that a run would have more than a million samples", () => {
    expect(rejection(scenario((s) => (s.sampleEvery = "500us"))).message).toMatch(/at least 1ms/);
    const many = rejection(scenario((s) => ((s.duration = "2h"), (s.sampleEvery = "1ms"))));
    expect(many.path).toBe("sampleEvery");
    expect(many.message).toMatch(/1,000,000 samples/);
  });

  it("a seed outside [0, 2^32 − 1]", () => {
    expect(rejection(scenario((s) => (s.seed = -1))).message).toMatch(/\[0, 4294967295\]/);
  });

  it("a fault of an unknown kind, listing the kinds", () => {
    const e = rejection(scenario((s) => (s.faults = [{ kind: "x", at: "1s" }])));
    expect(e.path).toBe("faults.0.kind");
    expect(e.message).toMatch(/consumerCrash/);
  });

  it("a fault whose target names an unknown group", () => {
    const e = rejection(scenario((s) => (s.faults = [{ kind: "consumerStop", at: "1s", target: "NOPE/0" }])));
    expect(e.path).toBe("faults.0.target");
    expect(e.message).toMatch(/unknown group "NOPE"/);
  });

  it("expect that is not a list of strings", () => {
    expect(rejection(scenario((s) => (s.expect = ["a", 1]))).path).toBe("expect");
  });

  it("a bad network latency distribution, naming the nested field", () => {
    const e = rejection(scenario((s) => (s.network = { latency: { dist: "lognormal", median: "1ms", p99: "1us" } })));
    expect(e.path).toBe("network.latency");
    expect(e.message).toMatch(/p99 "1us" must be at least the median "1ms"/);
  });
});

describe("read.ts helpers", () => {
  it("checkKeys names the full path of the unknown key", () => {
    expect(() => checkKeys({ b: 1 }, ["a"], "x.y")).toThrow(expect.objectContaining({ path: "x.y.b" }));
  });

  it("nearest only guesses within a typo's distance", () => {
    expect(nearest("grups", ["groups", "topics"])).toBe("groups");
    expect(nearest("completely", ["groups", "topics"])).toBeUndefined();
    expect(nearest("BROKERS", ["brokers"])).toBe("brokers");
  });

  it("readInt states the range for values that are out of it, and the whole-number rule for fractions", () => {
    expect(() => readInt({ k: 11 }, "k", "p", 1, 10)).toThrow("p: 11 is out of range [1, 10]");
    expect(() => readInt({ k: 2.5 }, "k", "p", 1, 10)).toThrow("p: must be a whole number in [1, 10], got 2.5");
    expect(() => readInt({ k: Number.NaN }, "k", "p", 1, 10)).toThrow(/must be a number in \[1, 10\]/);
  });

  it("readEnum lists the allowed values", () => {
    expect(() => readEnum({ k: 3 }, "k", "p", ["a", "b"])).toThrow('p: 3 is not one of "a", "b"');
  });
});

describe("normalizeScenario: body sizes against the brokers' maxMessageSize (issue 11 defect 4)", () => {
  /** The minimal scenario with a producer of `bodyBytes` bodies and, optionally, a broker edit. */
  const producing = (bodyBytes: unknown, edit: (s: Json) => void = () => {}): Json =>
    scenario((s) => {
      s.topics[0].produce = { rate: 10, bodyBytes };
      edit(s);
    });

  it("with default settings accepts a const body of exactly 4 MiB and refuses 4 MiB + 1 byte", () => {
    expect(normalizeScenario(producing("4MiB")).topics[0]!.produce!.bodyBytes.valueMax).toBe(4_194_304);
    const e = rejection(producing(4_194_305));
    expect(e.path).toBe("topics.0.produce.bodyBytes");
    expect(e.reason).toBe(
      "can draw bodies up to 4.0 MiB (4194305 bytes), but brokers.0.maxMessageSize (broker-a) is 4.0 MiB (4194304 bytes), " +
        "the largest body the broker accepts: use smaller sizes or raise maxMessageSize",
    );
  });

  it("refuses a body of exactly 4 GiB (which the Int32 size column stored as 0 bytes), naming maxMessageSize", () => {
    const e = rejection(producing("4GiB"));
    expect(e.path).toBe("topics.0.produce.bodyBytes");
    expect(e.message).toMatch(/up to 4\.0 GiB \(4294967296 bytes\), but brokers\.0\.maxMessageSize \(broker-a\) is 4\.0 MiB/);
  });

  it("refuses a lognormal body size with a 1 MiB p99: its tail has no largest value", () => {
    const e = rejection(producing({ dist: "lognormal", median: "2KiB", p99: "1MiB" }));
    expect(e.path).toBe("topics.0.produce.bodyBytes");
    expect(e.reason).toBe(
      "lognormal has no largest value, so it can draw bodies of any size, but brokers.0.maxMessageSize (broker-a) is 4.0 MiB " +
        '(4194304 bytes), the largest body the broker accepts: bound it with "max" (e.g. "max": 4194304) or raise maxMessageSize',
    );
  });

  it("accepts the same lognormal bounded with max 4 MiB, which then never draws above 4 MiB", () => {
    const body = normalizeScenario(producing({ dist: "lognormal", median: "2KiB", p99: "1MiB", max: "4MiB" })).topics[0]!.produce!.bodyBytes;
    expect(body.valueMax).toBe(4_194_304);
    expect(body.quantile(1 - 2 ** -53)).toBeLessThanOrEqual(4_194_304);
  });

  it("refuses every unbounded kind (exponential, normal, pareto) without max", () => {
    for (const body of [{ dist: "exponential", mean: "1KiB" }, { dist: "normal", mean: "1KiB", sd: 100 }, { dist: "pareto", scale: "1KiB", shape: 3 }]) {
      expect(rejection(producing(body)).reason, body.dist).toMatch(new RegExp(`^${body.dist} has no largest value`));
    }
  });

  it("compares the largest value drawn: a uniform's max, an empirical's largest value of positive weight", () => {
    expect(rejection(producing({ dist: "uniform", min: "1KiB", max: "5MiB" })).reason).toMatch(/^can draw bodies up to 5\.0 MiB \(5242880 bytes\)/);
    expect(rejection(producing({ dist: "empirical", values: [["1KiB", 1], ["8MiB", 1]] })).path).toBe("topics.0.produce.bodyBytes");
    // An entry of weight 0 is never drawn, so it may exceed the limit.
    expect(() => normalizeScenario(producing({ dist: "empirical", values: [["1KiB", 1], ["8MiB", 0]] }))).not.toThrow();
  });

  it("lets a larger maxMessageSize, in bytes or a unit string, admit larger bodies", () => {
    const model = normalizeScenario(producing("8MiB", (s) => (s.brokers[0].maxMessageSize = "8MiB")));
    expect(model.brokers[0]!.maxMessageSize).toBe(8 * 1024 ** 2);
    expect(normalizeScenario(producing(5000, (s) => (s.brokers[0].maxMessageSize = 5000))).brokers[0]!.maxMessageSize).toBe(5000);
    expect(rejection(producing(5001, (s) => (s.brokers[0].maxMessageSize = 5000))).path).toBe("topics.0.produce.bodyBytes");
  });

  it("holds a topic on several brokers to the strictest one (the producer may send to any)", () => {
    const e = rejection(
      producing("2MiB", (s) => {
        s.brokers.push({ name: "broker-b", maxMessageSize: "1MiB" });
        s.topics[0].brokers = ["broker-a", "broker-b"];
      }),
    );
    expect(e.path).toBe("topics.0.produce.bodyBytes");
    expect(e.reason).toMatch(/but brokers\.1\.maxMessageSize \(broker-b\) is 1\.0 MiB \(1048576 bytes\)/);
  });

  it("ignores the limits of brokers the topic is not on", () => {
    expect(() => normalizeScenario(producing("2MiB", (s) => s.brokers.push({ name: "broker-b", maxMessageSize: "1MiB" })))).not.toThrow();
  });
});

describe("normalizeScenario: maxMessageSize range (1 B to 1 GiB)", () => {
  /** maxMessageSize on a broker with no producing topic, so only the field's own range applies. */
  const withLimit = (value: unknown): Json => scenario((s) => (s.brokers[0].maxMessageSize = value));

  it("accepts both ends: 1 byte and 1 GiB", () => {
    expect(normalizeScenario(withLimit(1)).brokers[0]!.maxMessageSize).toBe(1);
    expect(normalizeScenario(withLimit("1GiB")).brokers[0]!.maxMessageSize).toBe(1024 ** 3);
  });

  it("refuses 0 and anything above 1 GiB, naming the field and the range", () => {
    for (const value of [0, 1024 ** 3 + 1, "2GiB", "4GiB"]) {
      const e = rejection(withLimit(value));
      expect(e.path, String(value)).toBe("brokers.0.maxMessageSize");
      expect(e.reason, String(value)).toMatch(/must be from 1 byte to 1\.0 GiB \(1073741824 bytes\); RocketMQ's default is 4 MiB$/);
    }
  });

  it("refuses what is not a size with the accepted forms, like every byte field", () => {
    expect(rejection(withLimit("4MB")).reason).toMatch(/only the 1024-based units/);
    expect(rejection(withLimit(-1)).path).toBe("brokers.0.maxMessageSize");
    expect(rejection(withLimit(1.5)).reason).toMatch(/not a whole number of bytes/);
  });
});
