// Message filtering end to end (spec §4.2, §13.2, §13.4): tag hash codes at the broker with the client's
// re-check, and SQL92 subscriptions evaluated on derived message properties. Runs go through simulate(),
// the CLI's entry point, so the conservation and invariant checks run too. Expected numbers are derived
// in the comments from the mechanics, never copied from output.
import { describe, expect, it } from "vitest";
import { simulate } from "../run/simulate.ts";
import type { QueueRow, Summary } from "../metrics/summary.ts";
import type { ScenarioInput } from "../scenario/types.ts";
import { explain } from "../explain/explain.ts";
import { REASON } from "../explain/types.ts";

type Patch = { topic?: Record<string, unknown>; group?: Record<string, unknown>; broker?: Record<string, unknown>; duration?: string };

function scenario(p: Patch): ScenarioInput {
  return {
    name: "filtering",
    seed: 1,
    phase: "aligned",
    duration: p.duration ?? "2m",
    brokers: [{ name: "broker-a", ...p.broker }],
    topics: [{ name: "T", brokers: ["broker-a"], queuesPerBroker: 2, ...p.topic }],
    groups: [{ name: "G", instances: 1, listener: { consumeTime: "1ms" }, ...p.group }],
  } as ScenarioInput;
}

/** The group's rows on topic T (not its %RETRY% queues). */
const rowsOfT = (s: Summary): QueueRow[] => s.perQueue.filter((q) => q.topic === "T");
const sum = (rows: QueueRow[], f: (q: QueueRow) => number): number => rows.reduce((a, q) => a + f(q), 0);

describe("tag hash collision: \"Aa\" and \"BB\" share String.hashCode 2112", () => {
  // 100 msg/s for 60 s, half "Aa" and half "BB", then nothing for 60 s. The broker matches hash codes, so
  // every unit passes its filter and crosses the wire; the client keeps only "Aa".
  const s = simulate(scenario({
    topic: { produce: { rate: 100, tags: { Aa: 0.5, BB: 0.5 }, rateChanges: [{ at: "60s", rate: 0 }] } },
    group: { subscribe: { T: "Aa" } },
  })).summary;
  const rows = rowsOfT(s);
  const produced = s.messages.produced;

  it("transfers every produced message and filters none at the broker", () => {
    // No faults: each unit is read exactly once by the single owner.
    expect(produced).toBeGreaterThan(5000);
    expect(sum(rows, (q) => q.filter!.transferred)).toBe(produced);
    expect(sum(rows, (q) => q.filter!.filteredAtBroker)).toBe(0);
  });

  it("consumes only \"Aa\" — about half — and counts the rest as filtered at the client", () => {
    // The "Aa" count is Binomial(produced, 1/2): mean produced/2, sd √produced/2; 4 sd either side.
    const sd = Math.sqrt(produced) / 2;
    expect(Math.abs(s.messages.consumed - produced / 2)).toBeLessThan(4 * sd);
    expect(sum(rows, (q) => q.filter!.filteredAtClient)).toBe(produced - s.messages.consumed);
    // The message books agree: what the subscription does not select is filtered, nothing is lost.
    expect(s.messages.filtered).toBe(produced - s.messages.consumed);
    expect(s.messages.lost).toBe(0);
  });

  it("still commits every queue to its end", () => {
    // A trailing "BB" is never cached: its offset is committed when the idle pull's hold ends (≤ 20 s)
    // with NO_NEW_MSG and an empty cache (correctTagsOffset), then persisted within 5 s — all well
    // inside the 60 idle seconds.
    for (const q of rows) expect(q.committedOffset).toBe(q.maxOffset);
  });
});

describe("tags without a collision", () => {
  const sc = scenario({
    topic: { produce: { rate: 100, tags: { TagA: 0.5, TagB: 0.5 }, rateChanges: [{ at: "60s", rate: 0 }] } },
    group: { subscribe: { T: "TagA" } },
  });
  const s = simulate(sc).summary;
  const rows = rowsOfT(s);

  it("filter at the broker: only the subscribed tag crosses the wire", () => {
    expect(sum(rows, (q) => q.filter!.transferred)).toBe(s.messages.consumed);
    expect(sum(rows, (q) => q.filter!.filteredAtClient)).toBe(0);
    // Each unit is scanned once: the broker skipped exactly what was not consumed.
    expect(sum(rows, (q) => q.filter!.filteredAtBroker)).toBe(s.messages.produced - s.messages.consumed);
  });

  it("run exactly as matching tag indexes did: the same trace hash without the hash-code filter", () => {
    // With distinct hash codes "hash in code set" and "index in tag set" accept the same units, and the
    // client's re-check drops nothing, so every event is the same.
    const byIndex = simulate(sc, { configure: (cl) => { for (const n of cl.nodes) n.processor.filters = null; } }).summary;
    expect(byIndex.traceHash).toBe(s.traceHash);
    expect(byIndex.messages).toEqual(s.messages);
  });
});

const REGION_1_PERCENT = { region: { values: { eu: 1, us: 99 } } };
const SQL_EU = { T: { sql: "region = 'eu'" } };

describe("SQL92 over a backlog: the 800-unit scan window", () => {
  // One queue with 8 000 messages at start, none after; 1 % have region 'eu'. A scan looks at
  // max(16 000, 32 × 20) / 20 = 800 units (§13.2); a batch is full only at 32 matches, which 800 units
  // at 1 % (mean 8) practically never hold. So every pull scans exactly 800 units, and with its
  // filtered tail the next pull starts 800 further: 8 000 / 800 = 10 answers, each FOUND unless its
  // window has no match (NO_MATCHED; probability 0.99^800 ≈ 3·10⁻⁴).
  const base = { queuesPerBroker: 1, produce: { rate: 0, backlog: 8000, properties: REGION_1_PERCENT } };
  const group = { consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET" };
  const s = simulate(scenario({ broker: { config: { enablePropertyFilter: true } }, topic: base, group: { ...group, subscribe: SQL_EU } })).summary;
  const all = simulate(scenario({ topic: base, group: { ...group, subscribe: { T: "*" } } })).summary;
  const f = rowsOfT(s)[0]!.filter!;

  it("answers 10 pulls of 800 units each", () => {
    expect(f.pullsFound + f.pullsNoMatched).toBe(10);
    expect(f.pullsFound).toBeGreaterThanOrEqual(9);
  });

  it("consumes the ~1 % that match and counts the rest as filtered at the broker", () => {
    // Matches ~ Binomial(8 000, 0.01): mean 80, sd 8.9; 4 sd either side.
    const matched = s.messages.consumed;
    expect(matched).toBeGreaterThan(80 - 4 * 8.9);
    expect(matched).toBeLessThan(80 + 4 * 8.9);
    expect(f.transferred).toBe(matched);
    expect(f.filteredAtBroker).toBe(8000 - matched);
    expect(f.filteredAtClient).toBe(0);
    expect(s.messages.filtered).toBe(8000 - matched);
  });

  it("carries ~8 messages per FOUND pull where \"*\" carries 32", () => {
    // "*": 32 per pull (pullBatchSize = maxTransferCountOnMessageInMemory), 8 000 / 32 = 250 FOUND.
    expect(all.pulls.found).toBe(250);
    const perFound = s.messages.consumed / f.pullsFound;
    expect(perFound).toBeGreaterThan((80 - 4 * 8.9) / 10);
    expect(perFound).toBeLessThan((80 + 4 * 8.9) / 9);
    expect(perFound).toBeLessThan(all.messages.consumed / all.pulls.found / 2);
  });
});

describe("SQL92 on a slow, caught-up queue: NO_MATCHED_MSG dominates", () => {
  // One queue, 10 msg/s evenly spaced for 300 s, 1 % 'eu': a match every ~10 s. The caught-up pull is
  // held; a non-matching arrival does not wake it (§13.4 matches the arriving message's filter), a
  // matching one does and gets FOUND with that one message. The hold service's check every 5 s replays
  // the held pull whatever arrived: 50 non-matching units since it was held → NO_MATCHED_MSG, and the
  // client pulls again at once (held again). So ~300 / 5 = 60 NO_MATCHED against ~30 FOUND.
  const s = simulate(scenario({
    duration: "300s",
    broker: { config: { enablePropertyFilter: true } },
    topic: { queuesPerBroker: 1, produce: { rate: 10, arrival: "uniform", properties: REGION_1_PERCENT } },
    group: { subscribe: SQL_EU },
  })).summary;
  const f = rowsOfT(s)[0]!.filter!;

  it("answers NO_MATCHED about once per 5 s hold check", () => {
    expect(f.pullsNoMatched).toBeGreaterThanOrEqual(55);
    expect(f.pullsNoMatched).toBeLessThanOrEqual(61);
  });

  it("answers FOUND once per match, one message each, far fewer than NO_MATCHED", () => {
    // Matches ~ Binomial(3 000, 0.01): mean 30, sd 5.4.
    expect(s.messages.consumed).toBeGreaterThan(30 - 4 * 5.4);
    expect(s.messages.consumed).toBeLessThan(30 + 4 * 5.4);
    expect(f.pullsFound).toBe(s.messages.consumed);
    expect(f.pullsNoMatched).toBeGreaterThan(1.5 * f.pullsFound);
  });
});

describe("SQL92 without enablePropertyFilter", () => {
  // PullMessageProcessor refuses the pull with SYSTEM_ERROR (4.9.7 and 5.x); the client takes it as an
  // exception and pulls again after pullTimeDelayMillsWhenException (1 s): ~120 refusals in 120 s.
  const s = simulate(scenario({
    topic: { queuesPerBroker: 1, produce: { rate: 0, backlog: 1000, properties: REGION_1_PERCENT } },
    group: { consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET", subscribe: SQL_EU },
  })).summary;

  it("consumes nothing: every pull of the topic is refused, the broker reads nothing", () => {
    expect(s.messages.consumed).toBe(0);
    expect(s.pulls.found).toBe(0);
    expect(s.pulls.exception).toBeGreaterThanOrEqual(110);
    expect(s.pulls.exception).toBeLessThanOrEqual(121);
    const f = rowsOfT(s)[0]!.filter!;
    expect(f.filteredAtBroker + f.transferred + f.pullsFound + f.pullsNoMatched).toBe(0);
  });

  it("explain names the cause: one pullFailures interval over the run, the broker's enablePropertyFilter", () => {
    const input = scenario({
      topic: { queuesPerBroker: 1, produce: { rate: 0, backlog: 1000, properties: REGION_1_PERCENT } },
      group: { consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET", subscribe: SQL_EU },
    });
    const q = explain(input, { queue: "T@broker-a#0" }).queues.find((x) => x.queue === "T@broker-a#0")!;
    const fails = q.intervals.filter((i) => i.reason === REASON.pullFailures);
    expect(fails.length).toBe(1);
    expect(fails[0]!.figures.cause).toBe("SQL92 filter refused: the broker's enablePropertyFilter is false");
    expect(fails[0]!.figures.lastErrorCode).toBe(1); // SYSTEM_ERROR
  });
});
