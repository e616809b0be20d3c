// Expectations against a hand-built ten-sample series and summary, so every expected figure below is
// worked out in the comments rather than read off the code's output.
import { describe, expect, it } from "vitest";
import { expectNames, normalizeScenario } from "./normalize.ts";
import type { ScenarioInput } from "./types.ts";
import { InputError } from "./errors.ts";
import { evaluateExpectation, numericPaths, type ExpectResult } from "./expect.ts";
import { EXPRESSION_DEPTH_MAX, EXPRESSION_LENGTH_MAX, ExpectError, parseExpectation, seriesNames, type ExpectNames } from "./expectParser.ts";
import { SERIES_ALIASES, SERIES_COLUMNS, type SeriesColumn, type SeriesData } from "./vocabulary.ts";

/** A series with samples at `tSec`, every column zero except those given. */
function series(tSec: number[], given: Partial<Record<SeriesColumn, number[]>>): SeriesData {
  const columns = {} as Record<SeriesColumn, number[]>;
  for (const c of SERIES_COLUMNS) columns[c] = given[c] ?? tSec.map(() => 0);
  columns.tSec = tSec;
  return { columns };
}

// Samples at 1 s … 10 s.
//   t (s)               1     2     3     4     5     6     7     8     9    10
//   lag.committed       5    40    10    80    20    60    30    90     0    50
//   cache.countPerQ…    0   100   500  1032  1032   900   800   700   600   500
//   throughput.consumed 1000 1900 2000 2000 2000 2000 2000 2000 2000 2000
//   flowControl.count   0     0     0     3     5     0     0     0     0     0
//   flowControl.span    all 0
const SERIES = series([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], {
  lagCommitted: [5, 40, 10, 80, 20, 60, 30, 90, 0, 50],
  cachedPerQueueMax: [0, 100, 500, 1032, 1032, 900, 800, 700, 600, 500],
  consumedPerSec: [1000, 1900, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000],
  flowControlCountPerSec: [0, 0, 0, 3, 5, 0, 0, 0, 0, 0],
});

const SUMMARY = {
  scenario: "hand-built",
  complete: true,
  messages: { produced: 1000, lost: 0, dlq: 2 },
  lag: { committed: { final: 50, max: 90 } },
  // The summary's flowControl.count (a run total) shares its name with a series alias (a per-second rate).
  flowControl: { count: 8, span: 0 },
  latency: { endToEnd: { p99Ms: 1500 } },
  throughput: { consumedPerSec: { mean: 1980 } },
  perQueue: [{ cached: 3 }],
};

const NAMES: ExpectNames = { summaryPaths: numericPaths(SUMMARY), variables: ["best"] };

function run(src: string, variables?: Record<string, number>): ExpectResult {
  return evaluateExpectation(parseExpectation(src, NAMES), { summary: SUMMARY, series: SERIES, variables });
}
const holds = (src: string, variables?: Record<string, number>) => run(src, variables).ok;

/** Parses `src` and returns the ExpectError it must throw. */
function rejection(src: string, names: ExpectNames = NAMES): ExpectError {
  try {
    parseExpectation(src, names);
  } catch (e) {
    if (e instanceof ExpectError) return e;
    throw e;
  }
  throw new Error(`expected an ExpectError for ${JSON.stringify(src)}, but it parsed`);
}

describe("numericPaths and series names", () => {
  it("numericPaths lists every numeric or boolean leaf as a dotted path and skips arrays", () => {
    expect(NAMES.summaryPaths).toEqual([
      "complete",
      "messages.produced",
      "messages.lost",
      "messages.dlq",
      "lag.committed.final",
      "lag.committed.max",
      "flowControl.count",
      "flowControl.span",
      "latency.endToEnd.p99Ms",
      "throughput.consumedPerSec.mean",
    ]);
  });

  it("seriesNames lists the friendly aliases, each of which maps to a real column", () => {
    expect(seriesNames()).toEqual(Object.keys(SERIES_ALIASES));
    for (const column of Object.values(SERIES_ALIASES)) expect(SERIES_COLUMNS).toContain(column);
    expect(SERIES_ALIASES["lag.committed"]).toBe("lagCommitted");
  });
});

describe("summary figures", () => {
  it("compares a summary figure and names it in actual", () => {
    const r = run("messages.lost == 0");
    expect(r).toMatchObject({ expression: "messages.lost == 0", ok: true, actual: "messages.lost = 0" });
    expect(holds("lag.committed.max <= 90")).toBe(true);
    expect(holds("lag.committed.max <= 89")).toBe(false);
    expect(holds("latency.endToEnd.p99Ms < 2000")).toBe(true);
    expect(holds("latency.endToEnd.p99Ms < 1500")).toBe(false);
  });

  it("reads a boolean figure as 1 or 0", () => {
    expect(holds("complete == 1")).toBe(true);
  });

  it("reads a name that is both a summary figure and a series alias as the summary figure outside aggregates", () => {
    expect(run("flowControl.count == 8")).toMatchObject({ ok: true, actual: "flowControl.count = 8" });
    expect(run("max(flowControl.count) == 5")).toMatchObject({ ok: true, actual: "max(flowControl.count) = 5" });
  });

  it("compares each way: < <= > >= == !=", () => {
    // messages.dlq = 2
    const table: [string, boolean][] = [
      ["messages.dlq < 3", true], ["messages.dlq < 2", false],
      ["messages.dlq <= 2", true], ["messages.dlq <= 1", false],
      ["messages.dlq > 1", true], ["messages.dlq > 2", false],
      ["messages.dlq >= 2", true], ["messages.dlq >= 3", false],
      ["messages.dlq == 2", true], ["messages.dlq == 3", false],
      ["messages.dlq != 3", true], ["messages.dlq != 2", false],
    ];
    for (const [src, ok] of table) expect([src, holds(src)]).toEqual([src, ok]);
  });
});

describe("aggregates over a series", () => {
  it("max, min, mean, sum and last over the whole run", () => {
    // lag: 5 40 10 80 20 60 30 90 0 50 → max 90, min 0, Σ 385, mean 38.5, last 50
    expect(run("max(lag.committed) == 90")).toMatchObject({ ok: true, actual: "max(lag.committed) = 90" });
    expect(run("min(lag.committed) == 0")).toMatchObject({ ok: true, actual: "min(lag.committed) = 0" });
    expect(run("sum(lag.committed) == 385")).toMatchObject({ ok: true, actual: "sum(lag.committed) = 385" });
    expect(run("mean(lag.committed) == 38.5")).toMatchObject({ ok: true, actual: "mean(lag.committed) = 38.5" });
    expect(run("last(lag.committed) == 50")).toMatchObject({ ok: true, actual: "last(lag.committed) = 50" });
    expect(holds("max(lag.committed) < 90")).toBe(false);
  });

  it("a closed window includes both ends", () => {
    // 5 s … 10 s: 20 60 30 90 0 50 → max 90, min 0, Σ 250, last 50; 3 s … 4 s: 10 80
    expect(run("sum(lag.committed, 5s..10s) == 250")).toMatchObject({ ok: true, actual: "sum(lag.committed, 5s..10s) = 250" });
    expect(holds("min(lag.committed, 3s..4s) == 10")).toBe(true);
    expect(holds("max(lag.committed, 3s..4s) == 80")).toBe(true);
    expect(holds("sum(lag.committed, 2s..2s) == 40")).toBe(true);
    expect(holds("last(lag.committed, 2s..3s) == 10")).toBe(true);
  });

  it("an open start runs from the first sample, an open end to the last", () => {
    // ..5s: 5 40 10 80 20 → Σ 155, mean 31, last 20; 5s..: 20 60 30 90 0 50 → min 0, mean 250/6
    expect(run("mean(lag.committed, ..5s) == 31")).toMatchObject({ ok: true, actual: "mean(lag.committed, ..5s) = 31" });
    expect(holds("last(lag.committed, ..5s) == 20")).toBe(true);
    expect(run("min(lag.committed, 5s..) == 0")).toMatchObject({ ok: true, actual: "min(lag.committed, 5s..) = 0" });
    expect(run("mean(lag.committed, 5s..) > 41.6 and mean(lag.committed, 5s..) < 41.7").actual).toBe(
      "mean(lag.committed, 5s..) = 41.667",
    );
  });

  it("the issue's cache and throughput windows", () => {
    // cache 5 s … 10 s: 1032 900 800 700 600 500 → max 1032
    expect(run("max(cache.countPerQueueMax, 5s..10s) <= 1032")).toMatchObject({
      ok: true,
      actual: "max(cache.countPerQueueMax, 5s..10s) = 1032",
    });
    expect(holds("max(cache.countPerQueueMax, 5s..10s) < 1032")).toBe(false);
    // consumed from 2 s: 1900 + 8 × 2000 = 17 900 over 9 samples = 1988.89; whole run 18 900 / 10 = 1890
    expect(run("mean(throughput.consumed, 2s..) >= 1900")).toMatchObject({
      ok: true,
      actual: "mean(throughput.consumed, 2s..) = 1988.889",
    });
    expect(holds("mean(throughput.consumed) >= 1900")).toBe(false);
    expect(holds("mean(throughput.consumed) == 1890")).toBe(true);
  });

  it("a window holding no sample gives NaN, and every comparison with NaN fails", () => {
    expect(run("max(lag.committed, 4500ms..4900ms) < 1")).toMatchObject({ ok: false, actual: "max(lag.committed, 4500ms..4900ms) = NaN, not a number: no sample in that window (or before the first sample)" });
    expect(holds("max(lag.committed, 4500ms..4900ms) != 1")).toBe(false);
  });

  it("accepts the raw column name as well as its alias", () => {
    expect(holds("max(lagCommitted) == 90")).toBe(true);
  });
});

describe("at(series, time)", () => {
  it("at a sample's time gives that sample", () => {
    expect(run("at(lag.committed, 4s) == 80")).toMatchObject({ ok: true, actual: "at(lag.committed, 4s) = 80" });
  });

  it("between samples gives the last sample at or before the time", () => {
    expect(run("at(lag.committed, 4500ms) == 80")).toMatchObject({ ok: true, actual: "at(lag.committed, 4500ms) = 80" });
    expect(holds("at(lag.committed, 4999ms) == 80")).toBe(true);
    expect(holds("at(lag.committed, 1h) == 50")).toBe(true);
  });

  it("before the first sample is NaN, so the comparison is false", () => {
    expect(run("at(lag.committed, 500ms) < 1000")).toMatchObject({ ok: false, actual: "at(lag.committed, 500ms) = NaN, not a number: no sample in that window (or before the first sample)" });
    expect(holds("at(lag.committed, 500ms) >= 1000")).toBe(false);
  });
});

describe("first(condition)", () => {
  it("is the time in ms of the first sample where the condition holds", () => {
    // flowControl.count per sample: 0 0 0 3 5 0 … → first > 0 at 4 s, first > 4 at 5 s
    expect(run("first(flowControl.count > 0) == 4000")).toMatchObject({ ok: true, actual: "first(flowControl.count > 0) = 4s" });
    expect(holds("first(flowControl.count > 0) < 30s")).toBe(true);
    expect(holds("first(flowControl.count > 4) == 5s")).toBe(true);
    expect(holds("first(lag.committed >= 80) == 4s")).toBe(true);
  });

  it("is Infinity when the condition never holds: < 30s is false and > 30s is true", () => {
    expect(run("first(flowControl.count > 10) < 30s")).toMatchObject({ ok: false, actual: "first(flowControl.count > 10) = never" });
    expect(holds("first(flowControl.count > 10) > 30s")).toBe(true);
  });

  it("looks only inside its window, and actual names the window", () => {
    expect(run("first(flowControl.count > 0, 5s..) == 5s")).toMatchObject({
      ok: true,
      actual: "first(flowControl.count > 0, 5s..) = 5s",
    });
    expect(run("first(flowControl.count > 0, 6s..) > 1h").actual).toBe("first(flowControl.count > 0, 6s..) = never");
    expect(holds("first(flowControl.count > 0, ..3s) > 1h")).toBe(true);
  });

  it("can use arithmetic and summary figures inside the condition", () => {
    // lag.committed.max = 90: 40 + 50 ≥ 90 first at 2 s
    expect(holds("first(lag.committed + 50 >= lag.committed.max) == 2s")).toBe(true);
  });
});

describe("never(condition)", () => {
  it("holds when the condition holds at no sample", () => {
    expect(run("never(flowControl.span > 0)")).toMatchObject({
      expression: "never(flowControl.span > 0)",
      ok: true,
      actual: "flowControl.span > 0 never held",
    });
  });

  it("fails when the condition holds at some sample, and says when first", () => {
    expect(run("never(flowControl.count > 0)")).toMatchObject({ ok: false, actual: "flowControl.count > 0 first at 4s" });
  });

  it("looks only inside its window", () => {
    expect(holds("never(flowControl.count > 0, 6s..)")).toBe(true);
    expect(holds("never(flowControl.count > 0, ..4s)")).toBe(false);
    expect(holds("never(flowControl.count > 0, 5s..5s)")).toBe(false);
    expect(holds("never(lag.committed > 85, 1s..7s)")).toBe(true);
  });
});

describe("and", () => {
  it("holds only when both clauses hold, and actual lists both", () => {
    expect(run("messages.lost == 0 and max(lag.committed) <= 90")).toMatchObject({
      ok: true,
      actual: "messages.lost = 0, max(lag.committed) = 90",
    });
    expect(holds("messages.lost == 0 and max(lag.committed) < 90")).toBe(false);
    expect(holds("messages.lost == 1 and max(lag.committed) <= 90")).toBe(false);
    expect(run("messages.dlq == 2 and never(flowControl.count > 0)")).toMatchObject({
      ok: false,
      actual: "messages.dlq = 2, flowControl.count > 0 first at 4s",
    });
  });
});

describe("arithmetic and units", () => {
  it("multiplies before adding, honours parentheses and unary minus, and divides", () => {
    expect(holds("1 + 2 * 3 == 7")).toBe(true);
    expect(holds("(1 + 2) * 3 == 9")).toBe(true);
    expect(holds("-2 * -3 == 6")).toBe(true);
    expect(holds("10 - 4 - 3 == 3")).toBe(true); // left-associative
    expect(holds("12 / 4 / 3 == 1")).toBe(true);
    expect(holds("7 / 2 == 3.5")).toBe(true);
    expect(holds("- (1 + 2) == -3")).toBe(true);
    expect(holds("messages.produced / 2 - messages.dlq * 10 == 480")).toBe(true);
  });

  it("reads durations as milliseconds and sizes as bytes", () => {
    expect(holds("2s == 2000")).toBe(true);
    expect(holds("1.5m == 90000")).toBe(true);
    expect(holds("1h == 3600000")).toBe(true);
    expect(holds("250us == 0.25")).toBe(true);
    expect(holds("5ms == 5")).toBe(true);
    expect(holds(".5s == 500")).toBe(true);
    expect(holds("1KiB == 1024")).toBe(true);
    expect(holds("100MiB == 104857600")).toBe(true);
    expect(holds("1GiB == 1024 * 1MiB and 1TiB == 1024 * 1GiB and 3B == 3")).toBe(true);
  });

  it("reads compound durations as scenario files do, units largest first", () => {
    expect(holds("1m30s == 90s")).toBe(true); // 60 000 + 30 000 ms
    expect(holds("1h0m5s == 3605000")).toBe(true);
    expect(holds("2s500ms == 2.5s")).toBe(true);
    expect(holds("1m0.5s == 60500")).toBe(true);
    expect(rejection("30s1m == 1").message).toMatch(/largest first/);
    expect(rejection("30s1m == 1").position).toBe(0);
  });

  it("keeps durations in whole microseconds, so decimal minutes and hours compare exactly", () => {
    // 0.27 × 60 000 is 16 200.000000000002 in floating point; 0.07 × 3 600 000 is 252 000.00000000003.
    expect(holds("0.27m == 16200ms")).toBe(true);
    expect(holds("0.07h == 252s")).toBe(true);
  });

  it("puts sample times on whole microseconds, so a 1.005 s sample is at 1005 ms", () => {
    // tSec = 1 005 000 µs / 1e6 = 1.005, and 1.005 × 1000 is 1004.9999999999999.
    const s = series([1.001, 1.003, 1.005], { lagCommitted: [0, 0, 7] });
    const at = (src: string) => evaluateExpectation(parseExpectation(src, NAMES), { summary: SUMMARY, series: s }).ok;
    expect(at("first(lag.committed > 0) == 1005ms")).toBe(true);
    expect(at("max(lag.committed, 1005ms..) == 7")).toBe(true);
    expect(at("at(lag.committed, 1005ms) == 7")).toBe(true);
  });
});

describe("variables", () => {
  it("reads a caller variable, e.g. the sweep's best", () => {
    // 1980 ≥ 0.99 × 2000 = 1980; not ≥ 0.99 × 2001 = 1980.99
    expect(run("throughput.consumedPerSec.mean >= 0.99 * best", { best: 2000 })).toMatchObject({
      ok: true,
      actual: "throughput.consumedPerSec.mean = 1980, best = 2000",
    });
    expect(holds("throughput.consumedPerSec.mean >= 0.99 * best", { best: 2001 })).toBe(false);
  });

  it("rejects a variable the caller did not declare", () => {
    expect(rejection("throughput.consumedPerSec.mean >= best", { summaryPaths: NAMES.summaryPaths }).reason).toMatch(
      /unknown name "best"/,
    );
  });
});

describe("malformed expectations: ExpectError with a position and a reason", () => {
  // [source, 0-based position, reason pattern]
  const cases: [string, number, RegExp][] = [
    ["", 0, /^empty expectation$/],
    ["   ", 3, /^empty expectation$/],
    ["messages.lost", 13, /^expected a comparison \(<= >= == != < >\)$/],
    ["messages.lost ==", 16, /^expression ends too early$/],
    // The names sharing the longest prefix with the typo come first.
    ["messages.lots == 0", 0, /^unknown name "messages\.lots"; under "messages" there are: messages\.lost, messages\.produced, messages\.dlq$/],
    ["bogus == 0", 0, /^unknown name "bogus"; summary figures start with complete, messages, lag, .*series are .*lag\.committed/],
    ["lag.committed < 5", 0, /^"lag\.committed" is a time series; use it inside max\(…\), min\(…\), mean\(…\), sum\(…\), last\(…\), at\(…\)/],
    ["median(lag.committed) < 1", 0, /^unknown function "median"; functions are max, min, mean, sum, last, at, first, never$/],
    ["max(messages.lost) < 1", 4, /^"messages\.lost" is not a time series; series are: throughput\.consumed, /],
    ["latency.endToEnd.p99Ms < 5parsecs", 26, /^unknown unit "parsecs" \(durations: us ms s m h; sizes: B KiB MiB GiB TiB\)$/],
    ["max(lag.committed, 10m..5m) < 1", 19, /^the window ends before it starts$/],
    ["max(lag.committed < 5", 18, /^expected "\)"$/],
    ["(1 + 2 == 3", 7, /^expected "\)"$/],
    ["messages.lost == 0 ;", 19, /^unexpected character ";"$/],
    ["messages.lost == 1 messages.dlq == 2", 19, /^unexpected "messages\.dlq" — join clauses with "and"$/],
    ["first(max(lag.committed) > 1) < 5s", 6, /^max\(…\) cannot be used inside first\(…\) or never\(…\)$/],
    ["never(first(lag.committed > 1) > 1)", 6, /^first\(…\) cannot be used inside first\(…\) or never\(…\)$/],
    ["at(lag.committed) < 5", 16, /^at\(…\) needs a time after the series, e.g\. at\(lag\.committed, 15m\)$/],
    ["at(lag.committed, 5MiB) < 5", 18, /^expected a duration, got "5MiB"$/],
    ["max(lag.committed, 5MiB..) < 1", 19, /^expected a duration, got "5MiB"$/],
    ["max(lag.committed, 5m) < 1", 21, /^expected "\.\."$/],
    ["max(lag.committed, ) < 1", 19, /^expected a window like 5m\.\.10m, 2m\.\. or \.\.30s$/],
    ["messages.lost == 0 and", 22, /^expression ends too early$/],
    ["first(lag.committed) < 5s", 19, /^expected a comparison/],
    ["never(flowControl.span > 0) == 0", 28, /^unexpected "==" — join clauses with "and"$/],
    ["1 + never(flowControl.span > 0) == 1", 4, /^never\(…\) is a clause of its own; join it to others with "and"$/],
    ["1 < messages.lost < 3", 18, /^unexpected "<" — join clauses with "and"$/],
  ];
  for (const [src, position, reason] of cases) {
    it(`${JSON.stringify(src)} fails at column ${position}: ${reason.source}`, () => {
      const e = rejection(src);
      expect(e.expression).toBe(src);
      expect(e.reason).toMatch(reason);
      expect(e.position).toBe(position);
    });
  }

  it("puts the 1-based column and the expression in the message", () => {
    expect(rejection("messages.lost == 0 ;").message).toBe('unexpected character ";" (column 20 of "messages.lost == 0 ;")');
  });
});

describe("the expectations in the issue text", () => {
  const issue = [
    "messages.lost == 0",
    "lag.committed.max <= 50000",
    "latency.endToEnd.p99Ms < 2000",
    "max(cache.countPerQueueMax, 5m..10m) <= 1032",
    "mean(throughput.consumed, 2m..) >= 1900",
    "at(lag.committed, 15m) < 1000",
    "first(flowControl.count > 0) < 30s",
    "never(flowControl.span > 0)",
  ];
  for (const src of issue) {
    it(`parses ${JSON.stringify(src)} against the real summary's names`, () => {
      expect(parseExpectation(src, expectNames()).source).toBe(src);
    });
  }
});

describe("expectations through normalizeScenario", () => {
  function tiny(expectations: string[]): ScenarioInput {
    return {
      name: "tiny",
      seed: 1,
      duration: "10s",
      brokers: [{ name: "broker-a" }],
      topics: [{ name: "T", brokers: ["broker-a"], queuesPerBroker: 2, produce: { rate: 100, arrival: "uniform" } }],
      groups: [{ name: "G", subscribe: { T: "*" } }],
      expect: expectations,
    };
  }

  it("normalizeScenario rejects a malformed expect[1] with an InputError at expect.1", () => {
    let caught: unknown;
    try {
      normalizeScenario(tiny(["messages.lost == 0", "messages.lots == 0"]));
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(InputError);
    const e = caught as InputError;
    expect(e.path).toBe("expect.1");
    expect(e.reason).toMatch(/^unknown name "messages\.lots"; under "messages" there are: .*messages\.lost/);
    expect(e.reason).toMatch(/\(column 1 of "messages\.lots == 0"\)$/);
  });
});

describe("per-group figures (issue 12): groups.<group>.<figure>, groups.<group>.instances.<i>.<figure>", () => {
  const summary = {
    groups: [
      { group: "A", dropped: 3, instances: null },
      { group: "my.group", dropped: 5, instances: [{ clientId: "x", consumed: 7 }, { clientId: "y", consumed: 9 }] },
      { group: "0", dropped: 11, instances: null },
    ],
  };
  const names: ExpectNames = {
    summaryPaths: ["groups.A.dropped", "groups.my.group.dropped", "groups.my.group.instances.1.consumed", "groups.0.dropped"],
  };
  const verdict = (src: string) => evaluateExpectation(parseExpectation(src, names), { summary, series: series([1], {}) });

  it("finds a group by its name, dots included, then an instance by its number", () => {
    expect(verdict("groups.A.dropped == 3").ok).toBe(true);
    expect(verdict("groups.my.group.dropped == 5").ok).toBe(true);
    expect(verdict("groups.my.group.instances.1.consumed == 9").actual).toBe("groups.my.group.instances.1.consumed = 9");
  });

  it("a group named like an index is found by its name, not by position", () => {
    expect(verdict("groups.0.dropped == 11").ok).toBe(true);
  });

  it("expectNames(groups) offers the scenario's group figures to the parser", () => {
    const m = normalizeScenario({
      name: "n", brokers: [{ name: "b" }], topics: [{ name: "T", brokers: ["b"] }],
      groups: [{ name: "G", instances: 2, messageModel: "BROADCASTING", subscribe: { T: "*" } }],
      expect: ["groups.G.dropped == 0", "groups.G.instances.1.consumed >= 0"],
    });
    expect(m.expectations.length).toBe(2);
    expect(() => normalizeScenario({
      name: "n", brokers: [{ name: "b" }], topics: [{ name: "T", brokers: ["b"] }],
      groups: [{ name: "G", subscribe: { T: "*" } }], expect: ["groups.H.dropped == 0"],
    })).toThrow(/expect\.0.*unknown name "groups\.H\.dropped"/);
  });
});

describe("own properties only, and NaN is never a silent fail (issue 15 item 2)", () => {
  it("a prototype name is no series and no unit: max(constructor) and 5constructor are rejected when parsed", () => {
    expect(rejection("max(constructor) > 1").message).toMatch(/"constructor" is not a time series/);
    expect(rejection("5constructor > 1").message).toMatch(/unknown unit "constructor"/);
    expect(rejection("toString > 1").message).toMatch(/toString/);
  });

  it("a comparison with a side that has no value fails and says which", () => {
    // A figure named in the vocabulary that this run does not have (e.g. replays without replicas).
    const names: ExpectNames = { summaryPaths: [...numericPaths(SUMMARY), "replays.rollback"], variables: [] };
    const r = evaluateExpectation(parseExpectation("replays.rollback >= 0", names), { summary: SUMMARY, series: SERIES });
    expect(r.ok).toBe(false);
    expect(r.actual).toMatch(/not a number: replays\.rollback has no value in this run/);
  });
});

describe("bounds (issue 15 item 1): a length and a nesting limit, and nothing recursive below them overflows", () => {
  it(`an expression longer than ${EXPRESSION_LENGTH_MAX} characters is refused before it is read`, () => {
    for (const src of ["(".repeat(5000) + "1" + ")".repeat(5000) + " == 1", "-".repeat(20_000) + "1 == 1", Array(20_000).fill("1").join(" + ") + " == 20000"]) {
      const e = rejection(src);
      expect(e.reason).toBe(`expression longer than 4096 characters (it has ${src.length})`);
      expect(e.position).toBe(4096);
    }
    const fits = `messages.lost == ${"0".repeat(EXPRESSION_LENGTH_MAX - 17)}`;
    expect(fits.length).toBe(EXPRESSION_LENGTH_MAX);
    expect(holds(fits)).toBe(true);
  });

  it(`parentheses, calls and unary minus signs nest at most ${EXPRESSION_DEPTH_MAX} deep; the 65th level is named by its column`, () => {
    expect(holds(`${"(".repeat(64)}1${")".repeat(64)} == 1`)).toBe(true);
    expect(holds(`${"-".repeat(64)}1 == 1`)).toBe(true);
    const parens = rejection(`${"(".repeat(65)}1${")".repeat(65)} == 1`);
    expect([parens.reason, parens.position]).toEqual(["expression nested deeper than 64 levels", 64]);
    const minus = rejection(`1 == ${"-".repeat(65)}1`);
    expect([minus.reason, minus.position]).toEqual(["expression nested deeper than 64 levels", 5 + 64]);
    // Calls count as a level: first( at depth 64 is the 65th.
    const call = rejection(`${"(".repeat(64)}first(flowControl.count > 0)${")".repeat(64)} < 1`);
    expect([call.reason, call.position]).toEqual(["expression nested deeper than 64 levels", 64]);
  });

  it("a flat sum of 2 000 terms is a flat list, evaluated left to right like the binary tree it replaces", () => {
    expect(holds(`${Array(2000).fill("1").join("+")} == 2000`)).toBe(true);
    // Left to right: (0.1 + 0.2) + 0.3 = 0.6000000000000001, unlike 0.1 + (0.2 + 0.3) = 0.6.
    expect(holds("0.1 + 0.2 + 0.3 == 0.6000000000000001")).toBe(true);
    expect(holds("8 / 4 / 2 == 1 and 10 - 4 - 3 == 3 and 2 + 3 * 4 - 6 / 2 == 11")).toBe(true);
    // Deep and long together: a 200-term sum inside 60 parentheses, inside a per-sample condition
    // (lag.committed is 5 at 1 s and 40 at 2 s: the sum is 1 000, then 8 000).
    const deep = `${"(".repeat(60)}${Array(200).fill("lag.committed").join("+")}${")".repeat(60)}`;
    expect(run(`first(${deep} > 7000) == 2s`).ok).toBe(true);
  });

  it("max and min over 300 000 samples do not spread them as call arguments (which overflows the stack)", () => {
    const t = Array.from({ length: 300_000 }, (_, i) => (i + 1) / 10);
    const lag = t.map((_, i) => (i === 123_456 ? 7 : 1));
    const big = series(t, { lagCommitted: lag });
    const r = (src: string) => evaluateExpectation(parseExpectation(src, NAMES), { summary: SUMMARY, series: big });
    expect(r("max(lag.committed) == 7").ok).toBe(true);
    expect(r("min(lag.committed) == 1").ok).toBe(true);
  });

  it("an error in a 12 000-character expression shows the column and ≈ 40 characters each side, not the whole expression", () => {
    const src = `messages.lost == 0 and ${"messages.lost + ".repeat(100)}bogus${" + messages.lost".repeat(100)} == 0`;
    expect(src.length).toBeLessThanOrEqual(EXPRESSION_LENGTH_MAX);
    const e = rejection(src);
    const at = src.indexOf("bogus");
    expect(e.position).toBe(at);
    expect(e.message).toBe(
      `${e.reason} (column ${at + 1} of a ${src.length}-character expression, here: "…${src.slice(at - 40, at + 40)}…")`,
    );
    const long = rejection("x".repeat(12_000));
    expect(long.message.length).toBeLessThan(250);
    expect(long.message).toMatch(/^expression longer than 4096 characters \(it has 12000\) \(column 4097 of a 12000-character expression, here: "…x{80}…"\)$/);
  });

  it("a 4 000-character name is quoted cut short in the message", () => {
    const e = rejection(`${"a".repeat(4000)} == 0`);
    expect(e.reason).toMatch(/^unknown name "a{78}… \(4000 characters\); summary figures start with/);
    expect(e.message.length).toBeLessThan(500);
  });
});
