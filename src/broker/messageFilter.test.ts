// ExpressionMessageFilter and ConsumerFilterManager as the broker uses them (messageFilter.ts), and
// getMessage's scan with a filter (spec §13.2): tag hash codes, SQL92 on derived properties, the 800-unit
// window counting filtered units.
import { describe, expect, it } from "vitest";
import { BROKER_CONFIG_DEFAULTS } from "../scenario/defaults.ts";
import { InputError } from "../scenario/errors.ts";
import { propertyValue } from "../scenario/messageProperties.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import { Routes } from "../protocol/routes.ts";
import { getMessage, GetMessageResult, GetMessageStatus, type GetMessageContext } from "./getMessage.ts";
import { BrokerFilters, checkSubscriptionFilters, type MessageFilter } from "./messageFilter.ts";
import { messageKey, QueueStore } from "./QueueStore.ts";

const AA = 0; // tag indexes of the topic below: "Aa", "BB", "TagC"
const BB = 1;
const TAG_C = 2;
const NO_TAG = -1;

function model(subscribe: Record<string, unknown>, config: Record<string, unknown> = {}) {
  return normalizeScenario({
    name: "mf",
    seed: 5,
    brokers: [{ name: "broker-a", config }],
    topics: [{
      name: "T", brokers: ["broker-a"], queuesPerBroker: 1,
      produce: { rate: 1, tags: { Aa: 1, BB: 1, TagC: 1 }, properties: { a: { dist: "uniform", min: 0, max: 100 }, region: { values: { eu: 1, us: 9 } } } },
    }],
    groups: Object.entries(subscribe).map(([name, s]) => ({ name, subscribe: { T: s } })),
  });
}

function filtersOf(subscribe: Record<string, unknown>): { filters: BrokerFilters; routes: Routes; m: ReturnType<typeof model> } {
  const m = model(subscribe);
  const routes = new Routes(m);
  return { filters: new BrokerFilters(m, routes.queues.length), routes, m };
}

describe("isMatchedByConsumeQueue: the tag's hash code in the subscription's code set", () => {
  const { filters } = filtersOf({ G: "Aa", H: "TagC || Zz", ALL: "*" });
  const g = filters.of(0, 0)!;
  const h = filters.of(1, 0)!;

  it("passes a colliding tag: \"BB\" has \"Aa\"'s hash code 2112", () => {
    expect(g.matchesConsumeQueue(AA)).toBe(true);
    expect(g.matchesConsumeQueue(BB)).toBe(true);
    expect(g.matchesConsumeQueue(TAG_C)).toBe(false);
  });

  it("never passes a message without a tag (tagsCode 0) to a tag subscription", () => {
    expect(g.matchesConsumeQueue(NO_TAG)).toBe(false);
    expect(h.matchesConsumeQueue(NO_TAG)).toBe(false);
  });

  it("matches an unknown subscribed tag by its hash code only", () => {
    expect(h.matchesConsumeQueue(TAG_C)).toBe(true);
    expect(h.matchesConsumeQueue(AA)).toBe(false);
  });

  it("has no filter for \"*\" nor for the group's %RETRY% topic", () => {
    expect(filters.of(2, 0)).toBeNull();
    expect(filters.of(0, 1)).toBeNull(); // topic 1: %RETRY%G (scenario topics come first)
  });
});

describe("isMatchedByCommitLog: SQL92 on the message's derived properties", () => {
  const { filters, m } = filtersOf({ S: { sql: "region = 'eu' AND a >= 50" }, G: "Aa" });
  const s = filters.of(0, 0)!;
  const [a, region] = m.topics[0]!.produce!.properties!;

  it("evaluates each message's own values, the same for every copy of it", () => {
    // The truth, from the property draws themselves (seed 5, properties in declaration order).
    let matched = 0;
    for (let o = 0; o < 2000; o++) {
      const want = propertyValue(region!, 1, 5, o) === "eu" && (propertyValue(a!, 0, 5, o) as number) >= 50;
      expect(s.matchesCommitLog(messageKey(0, o))).toBe(want);
      expect(s.matchesCommitLog(messageKey(0, o, 3))).toBe(want); // a refilled offset's generation
      if (want) matched++;
    }
    // 10 % 'eu' × about half with a ≥ 50: ~5 % of 2 000, Binomial sd ≈ 9.7.
    expect(matched).toBeGreaterThan(100 - 4 * 9.7);
    expect(matched).toBeLessThan(100 + 4 * 9.7);
  });

  it("passes every unit at the consume queue (no bloom filter data) and every message for tags", () => {
    expect(s.matchesConsumeQueue(TAG_C)).toBe(true);
    expect(filters.of(1, 0)!.matchesCommitLog(messageKey(0, 1))).toBe(true);
  });

  it("refuses the pull unless enablePropertyFilter, and only for SQL92", () => {
    expect(filters.refuses(0, 0, false)).toBe(true);
    expect(filters.refuses(0, 0, true)).toBe(false);
    expect(filters.refuses(1, 0, false)).toBe(false);
    expect(filters.refuses(0, 1, false)).toBe(false); // %RETRY%S is "*"
  });

  it("is off by default, as BrokerConfig.enablePropertyFilter", () => {
    expect(BROKER_CONFIG_DEFAULTS.enablePropertyFilter).toBe(false);
  });
});

describe("checkSubscriptionFilters: SQL92 compiled at load time", () => {
  it("names the field and the 0-based position of a syntax error", () => {
    const m = model({ S: { sql: "a > 5 AND" } });
    let err: unknown;
    try {
      checkSubscriptionFilters(m);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).path).toBe("groups.0.subscribe.T.sql");
    // "a > 5 AND" is 9 characters: the missing operand is at the end of input, position 9.
    expect((err as InputError).reason).toMatch(/^SQL92 syntax error at position 9 \(0-based\) of "a > 5 AND": /);
  });

  it("refuses text RocketMQ's parser would ignore after a complete expression, naming where it starts", () => {
    // "a > 5 ) x": the expression "a > 5" ends at 5; the parser stops at the ")" (position 6).
    let err: unknown;
    try {
      checkSubscriptionFilters(model({ S: { sql: "a > 5 ) x" } }));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).reason).toMatch(/^SQL92 text from position 6 \(0-based\) of "a > 5 \) x" is not part of the expression: RocketMQ's parser would ignore "\) x" and filter by "a > 5" alone/);
  });

  it("accepts a valid expression", () => {
    expect(() => checkSubscriptionFilters(model({ S: { sql: "a BETWEEN 1 AND 5 OR region IN ('eu', 'us')" } }))).not.toThrow();
  });
});

describe("getMessage with a filter (§13.2)", () => {
  const hot = (filter: MessageFilter | null): GetMessageContext => ({
    config: BROKER_CONFIG_DEFAULTS, hotBytes: Number.MAX_SAFE_INTEGER, commitLogTail: 1e9, profile: "5.x", maxCap: Infinity, filter,
  });
  function queue(tags: number[]): QueueStore {
    const q = new QueueStore(0, "T", "broker-a", 0);
    tags.forEach((t, i) => q.append(1000 + i, i * 100, 100, t, -1, 0, 0));
    return q;
  }

  it("returns both colliding tags, skips the others, and counts what it skipped", () => {
    const { filters } = filtersOf({ G: "Aa" });
    const r = getMessage(queue([AA, TAG_C, BB, NO_TAG, AA]), 0, 32, null, hot(filters.of(0, 0)), new GetMessageResult());
    expect(r.status).toBe(GetMessageStatus.FOUND);
    expect(Array.from(r.offsets.subarray(0, r.count))).toEqual([0, 2, 4]);
    expect(r.filtered).toBe(2);
    expect(r.nextBeginOffset).toBe(5);
  });

  it("moves past filtered trailing units: nextBeginOffset is after the last unit scanned", () => {
    const { filters } = filtersOf({ G: "Aa" });
    const r = getMessage(queue([AA, TAG_C, TAG_C]), 0, 32, null, hot(filters.of(0, 0)), new GetMessageResult());
    expect(r.count).toBe(1);
    expect(r.nextBeginOffset).toBe(3);
  });

  it("scans at most 800 units (16 000 bytes / 20): NO_MATCHED_MESSAGE 800 further when none match", () => {
    const { filters } = filtersOf({ G: "TagC" });
    const r = getMessage(queue(new Array<number>(1000).fill(AA)), 0, 32, null, hot(filters.of(0, 0)), new GetMessageResult());
    expect(r.status).toBe(GetMessageStatus.NO_MATCHED_MESSAGE);
    expect(r.nextBeginOffset).toBe(800);
    expect(r.filtered).toBe(800);
  });

  it("evaluates SQL92 per unit on the unit's original message", () => {
    const { filters } = filtersOf({ S: { sql: "region = 'eu'" } });
    const f = filters.of(0, 0)!;
    const q = queue(new Array<number>(200).fill(NO_TAG));
    const want: number[] = [];
    for (let o = 0; o < 200 && want.length < 32; o++) if (f.matchesCommitLog(q.originKey(o))) want.push(o);
    const r = getMessage(q, 0, 32, null, hot(f), new GetMessageResult());
    expect(Array.from(r.offsets.subarray(0, r.count))).toEqual(want);
    expect(r.filtered).toBe(r.nextBeginOffset - r.count);
  });
});
