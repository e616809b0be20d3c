// Baseline comparison on a real summary shape (emptySummary filled in by hand), so the paths below
// are the ones users will see; every expected drift is worked out in the test's comments.
import { describe, expect, it } from "vitest";
import { emptySummary, type Summary } from "../metrics/summary.ts";
import { InputError } from "../scenario/errors.ts";
import {
  compareSummaries,
  comparePaths,
  DEFAULT_IGNORES,
  DRIFT_EPSILON,
  EXACT,
  formatDrift,
  formatTolerance,
  parseTolerance,
  withinTolerance,
  type Drift,
  type Tolerance,
} from "./baseline.ts";

const pct = (p: number): Tolerance => ({ kind: "relative", fraction: p / 100 });
const abs = (a: number): Tolerance => ({ kind: "absolute", amount: a });

function queue(queueId: number, cached: number): Summary["perQueue"][number] {
  return {
    group: "G1", topic: "T", brokerName: "b0", queueId, owner: "c1", minOffset: 0, maxOffset: 1000,
    committedOffset: 900, nextOffset: 950, cached, orphanSeconds: 0, ownerHistory: [{ clientId: "c1", fromMs: 0, toMs: null, duplicates: 0 }], orderly: null,
  };
}

function baseSummary(): Summary {
  const s = emptySummary();
  s.scenario = "count-flow-control";
  s.seed = 7;
  s.traceHash = "9f2c41d0";
  s.traceRecords = 52_000;
  s.events = 81_000;
  s.messages.produced = 10_000;
  s.messages.consumed = 9_000;
  s.lag.committed.max = 41_200;
  s.latency.endToEnd = { count: 9_000, meanMs: 20, p50Ms: 12.5, p90Ms: 60, p99Ms: 120, maxMs: 400 };
  s.perQueue = [queue(0, 10), queue(1, 20), queue(2, 30), queue(3, 40)];
  s.expectations = [{ expression: "messages.lost == 0", ok: true, actual: "messages.lost = 0" }];
  return s;
}

/** A deep copy of the baseline with `edit` applied, as a second run would produce. */
function changed(edit: (s: Summary) => void): Summary {
  const s = structuredClone(baseSummary());
  edit(s);
  return s;
}

const FIVE = { tolerance: pct(5) };

describe("parseTolerance", () => {
  it("reads a percentage as relative, a plain number as absolute, and 0 as exact", () => {
    expect(parseTolerance("5%")).toEqual(pct(5));
    expect(parseTolerance("0.5")).toEqual(abs(0.5));
    expect(parseTolerance("100")).toEqual(abs(100));
    expect(parseTolerance("0")).toEqual(EXACT);
    expect(parseTolerance(" ±2.5 % ")).toEqual(pct(2.5));
    expect(parseTolerance(".5%")).toEqual(pct(0.5));
  });

  it("rejects anything else with an InputError that quotes the text", () => {
    for (const bad of ["", "abc", "-5%", "5%%", "%", "five", "1e999", "Infinity", "5 5"]) {
      expect(() => parseTolerance(bad), bad).toThrow(InputError);
      expect(() => parseTolerance(bad), bad).toThrow(JSON.stringify(bad));
    }
  });

  it("formats back as the allowed band, with exact for zero", () => {
    expect([pct(5), pct(7), abs(0.5), abs(100), EXACT, pct(0)].map(formatTolerance)).toEqual(["±5%", "±7%", "±0.5", "±100", "exact", "exact"]);
  });
});

describe("withinTolerance", () => {
  it("allows exactly the relative band: 100 ± 5% is 95 … 105", () => {
    expect(withinTolerance(100, 105, pct(5))).toBe(true);
    expect(withinTolerance(100, 95, pct(5))).toBe(true);
    expect(withinTolerance(100, 105.01, pct(5))).toBe(false);
    expect(withinTolerance(-100, -105, pct(5))).toBe(true);
  });

  it("absorbs binary rounding at the boundary: 0.1 → 0.105 is within 5%", () => {
    expect(withinTolerance(0.1, 0.105, pct(5))).toBe(true);
    expect(withinTolerance(1e12, 1.05e12, pct(5))).toBe(true);
  });

  it("from a baseline of 0, a relative tolerance allows only DRIFT_EPSILON", () => {
    expect(withinTolerance(0, 0, pct(50))).toBe(true);
    expect(withinTolerance(0, DRIFT_EPSILON / 2, pct(50))).toBe(true);
    expect(withinTolerance(0, 0.001, pct(50))).toBe(false);
    expect(withinTolerance(0, 1, pct(1000))).toBe(false);
  });

  it("from a baseline of 0, an absolute tolerance still applies", () => {
    expect(withinTolerance(0, 3, abs(5))).toBe(true);
    expect(withinTolerance(0, 6, abs(5))).toBe(false);
  });

  it("compares exactly under a zero tolerance, even for large integers", () => {
    expect(withinTolerance(1e12, 1e12 + 1, EXACT)).toBe(false);
    expect(withinTolerance(41_200, 41_200, EXACT)).toBe(true);
  });
});

describe("compareSummaries", () => {
  it("finds no drift between identical summaries", () => {
    expect(compareSummaries(baseSummary(), baseSummary(), { tolerance: EXACT })).toEqual([]);
  });

  it("finds no drift for a change inside the tolerance: 41200 → 43000 is +4.4%", () => {
    expect(compareSummaries(baseSummary(), changed((s) => (s.lag.committed.max = 43_000)), FIVE)).toEqual([]);
  });

  it("reports a change outside the tolerance with both values and the band: 41200 → 52310 is +27%", () => {
    expect(compareSummaries(baseSummary(), changed((s) => (s.lag.committed.max = 52_310)), FIVE)).toEqual<Drift[]>([
      { path: "lag.committed.max", baseline: 41_200, current: 52_310, allowed: "±5%", kind: "changed" },
    ]);
  });

  it("reports any move away from a baseline of 0 under a relative tolerance, and none under a wide enough absolute one", () => {
    const lost = changed((s) => (s.messages.lost = 1));
    expect(compareSummaries(baseSummary(), lost, { tolerance: pct(100) })).toEqual<Drift[]>([
      { path: "messages.lost", baseline: 0, current: 1, allowed: "±100%", kind: "changed" },
    ]);
    expect(compareSummaries(baseSummary(), lost, { tolerance: abs(1) })).toEqual([]);
    expect(compareSummaries(lost, changed((s) => (s.messages.lost = 0)), FIVE)).toHaveLength(1);
  });

  it("requires strings and booleans to be equal, whatever the tolerance", () => {
    const drifts = compareSummaries(baseSummary(), changed((s) => ((s.scenario = "other"), (s.complete = false))), { tolerance: pct(1000) });
    expect(drifts).toEqual<Drift[]>([
      { path: "complete", baseline: true, current: false, allowed: "equal", kind: "changed" },
      { path: "scenario", baseline: "count-flow-control", current: "other", allowed: "equal", kind: "changed" },
    ]);
  });

  it("reports a null that became a number as changed", () => {
    const drifts = compareSummaries(baseSummary(), changed((s) => (s.perQueue[1]!.ownerHistory[0]!.toMs = 5_000)), FIVE);
    expect(drifts).toEqual<Drift[]>([{ path: "perQueue.1.ownerHistory.0.toMs", baseline: null, current: 5_000, allowed: "equal", kind: "changed" }]);
  });

  it("reports a key only in the baseline as missing and a key only in the current run as added", () => {
    const current = changed((s) => delete (s.messages as Partial<Summary["messages"]>).dlq) as unknown as Record<string, unknown>;
    current.newFigure = { count: 3 };
    expect(compareSummaries(baseSummary(), current, FIVE)).toEqual<Drift[]>([
      { path: "messages.dlq", baseline: 0, current: null, allowed: "±5%", kind: "missing" },
      { path: "newFigure.count", baseline: null, current: 3, allowed: "±5%", kind: "added" },
    ]);
  });

  it("reports an empty list that appeared or vanished, since it has no leaves of its own", () => {
    const current = changed(() => undefined) as unknown as Record<string, unknown>;
    delete current.faults;
    current.notes = [];
    expect(compareSummaries(baseSummary(), current, FIVE).map((d) => [d.path, d.kind, d.baseline, d.current])).toEqual([
      ["faults", "missing", "[]", null],
      ["notes", "added", null, "[]"],
    ]);
  });

  it("compares arrays element by element, by index, and reports extra elements leaf by leaf", () => {
    const current = changed((s) => {
      s.perQueue[3]!.cached = 80;
      s.perQueue.push(queue(4, 5));
    });
    const drifts = compareSummaries(baseSummary(), current, FIVE);
    expect(drifts[0]).toEqual<Drift>({ path: "perQueue.3.cached", baseline: 40, current: 80, allowed: "±5%", kind: "changed" });
    // The new queue: its 12 scalars (`orderly` is null for a concurrently consuming group) plus the 4 of
    // its single ownerHistory entry.
    expect(drifts.slice(1).every((d) => d.kind === "added" && d.path.startsWith("perQueue.4."))).toBe(true);
    expect(drifts).toHaveLength(1 + 12 + 4);
    const shorter = changed((s) => s.perQueue.pop());
    expect(compareSummaries(baseSummary(), shorter, FIVE).filter((d) => d.kind !== "missing")).toEqual([]);
  });

  it("ignores traceHash, traceRecords, events and expectations by default, and compares them when asked", () => {
    expect(DEFAULT_IGNORES).toEqual(["traceHash", "traceRecords", "events", "expectations"]);
    const current = changed((s) => {
      s.traceHash = "00000000";
      s.traceRecords += 1;
      s.events += 100;
      s.expectations = [];
    });
    expect(compareSummaries(baseSummary(), current, { tolerance: EXACT })).toEqual([]);
    const all = compareSummaries(baseSummary(), current, { tolerance: EXACT, useDefaultIgnores: false });
    expect(all.map((d) => d.path)).toEqual(["events", "expectations.0.actual", "expectations.0.expression", "expectations.0.ok", "traceHash", "traceRecords"]);
  });

  it("skips ignored paths and everything under an ignored prefix, matching whole segments only", () => {
    const current = changed((s) => {
      s.latency.endToEnd.p99Ms = 500;
      s.lag.committed.max = 90_000;
      s.perQueue[2]!.ownerHistory[0]!.fromMs = 77;
    });
    const paths = (ignore: string[]) => compareSummaries(baseSummary(), current, { ...FIVE, ignore }).map((d) => d.path);
    expect(paths([])).toEqual(["lag.committed.max", "latency.endToEnd.p99Ms", "perQueue.2.ownerHistory.0.fromMs"]);
    expect(paths(["latency", "perQueue.*.ownerHistory"])).toEqual(["lag.committed.max"]);
    expect(paths(["lag.committed.max"])).toEqual(["latency.endToEnd.p99Ms", "perQueue.2.ownerHistory.0.fromMs"]);
    expect(paths(["lat", "lag.commit"])).toHaveLength(3);
  });

  it("applies a per-key override instead of the default tolerance: p99 120 → 130 is +8.3%", () => {
    const current = changed((s) => (s.latency.endToEnd.p99Ms = 130));
    expect(compareSummaries(baseSummary(), current, FIVE)).toHaveLength(1);
    expect(compareSummaries(baseSummary(), current, { ...FIVE, overrides: { "latency.endToEnd.p99Ms": pct(10) } })).toEqual([]);
  });

  it("applies a prefix override to everything under it, and the longest matching prefix wins", () => {
    // p99 120 → 150 (+25%), p50 12.5 → 15 (+20%), consumeWait.maxMs 0 → 0 (unchanged).
    const current = changed((s) => {
      s.latency.endToEnd.p99Ms = 150;
      s.latency.endToEnd.p50Ms = 15;
    });
    const drift = (overrides: Record<string, Tolerance>) =>
      compareSummaries(baseSummary(), current, { ...FIVE, overrides }).map((d) => `${d.path} ${d.allowed}`);
    expect(drift({ latency: pct(30) })).toEqual([]);
    expect(drift({ latency: pct(30), "latency.endToEnd": pct(22) })).toEqual(["latency.endToEnd.p99Ms ±22%"]);
    expect(drift({ latency: pct(30), "latency.endToEnd": pct(22), "latency.endToEnd.p99Ms": pct(26) })).toEqual([]);
    expect(drift({ "latency.endToEnd.p99Ms": pct(26), latency: pct(10) })).toEqual(["latency.endToEnd.p50Ms ±10%"]);
    expect(drift({ "lat": pct(30) })).toEqual(["latency.endToEnd.p50Ms ±5%", "latency.endToEnd.p99Ms ±5%"]);
  });

  it("lets a wildcard segment match any index, a literal segment beating it at equal length", () => {
    const current = changed((s) => {
      s.perQueue[0]!.cached = 15;
      s.perQueue[1]!.cached = 30;
    });
    const drift = (overrides: Record<string, Tolerance>) =>
      compareSummaries(baseSummary(), current, { ...FIVE, overrides }).map((d) => `${d.path} ${d.allowed}`);
    expect(drift({ "perQueue.*.cached": pct(60) })).toEqual([]);
    expect(drift({ "perQueue.*.cached": pct(60), "perQueue.1.cached": abs(1) })).toEqual(["perQueue.1.cached ±1"]);
  });

  it("compares identities exactly by default: the seed and each queue's id", () => {
    const current = changed((s) => {
      s.seed = 1_000_007;
      s.perQueue[3]!.queueId = 4;
    });
    const drifts = compareSummaries({ ...baseSummary(), seed: 1_000_000 }, current, { tolerance: pct(50), overrides: { perQueue: pct(50) } });
    expect(drifts.map((d) => `${d.path} ${d.allowed}`)).toEqual(["perQueue.3.queueId exact", "seed exact"]);
  });

  it("rejects a baseline that is not an object, a bad tolerance and an empty key path", () => {
    expect(() => compareSummaries([1, 2], baseSummary(), FIVE)).toThrow(/baseline is not a JSON object/);
    expect(() => compareSummaries(baseSummary(), "x", FIVE)).toThrow(/current summary is not a JSON object/);
    expect(() => compareSummaries(baseSummary(), baseSummary(), { tolerance: pct(-5) })).toThrow(InputError);
    expect(() => compareSummaries(baseSummary(), baseSummary(), { ...FIVE, overrides: { "a..b": EXACT } })).toThrow(/"a\.\.b" is not a key path/);
    expect(() => compareSummaries(baseSummary(), baseSummary(), { ...FIVE, ignore: [""] })).toThrow(InputError);
  });

  it("stops at an absurd nesting depth instead of overflowing the stack", () => {
    let deep: Record<string, unknown> = { v: 1 };
    for (let i = 0; i < 100; i++) deep = { d: deep };
    expect(() => compareSummaries(deep, structuredClone(deep), FIVE)).toThrow(/nested deeper than 64 levels/);
  });
});

describe("comparePaths", () => {
  it("orders index segments numerically and a prefix before what extends it", () => {
    const paths = ["perQueue.10.cached", "perQueue.9.cached", "perQueue.9", "lag.max", "perQueue.10.a"];
    expect(paths.sort(comparePaths)).toEqual(["lag.max", "perQueue.9", "perQueue.9.cached", "perQueue.10.a", "perQueue.10.cached"]);
  });
});

describe("formatDrift", () => {
  const drifts: Drift[] = [
    { path: "perQueue.3.cached", baseline: 40, current: null, allowed: "±5%", kind: "missing" },
    { path: "lag.committed.max", baseline: 41_200, current: 52_310, allowed: "±5%", kind: "changed" },
    { path: "messages.lost", baseline: 0, current: 3, allowed: "±5%", kind: "changed" },
    { path: "scenario", baseline: "a", current: "b", allowed: "equal", kind: "changed" },
    { path: "latency.consume.p99Ms", baseline: 12.5, current: 10, allowed: "±2", kind: "changed" },
    { path: "newFigure", baseline: null, current: 1, allowed: "±5%", kind: "added" },
  ];

  it("says so in one line when there is no drift", () => {
    expect(formatDrift([])).toBe("No drift from the baseline.");
  });

  it("writes a header with the counts, then one aligned line per drift sorted by path", () => {
    expect(formatDrift(drifts).split("\n")).toEqual([
      "6 drifts from the baseline (4 changed, 1 missing, 1 added):",
      "  lag.committed.max          41200 → 52310      (+27.0%, allowed ±5%)",
      "  latency.consume.p99Ms       12.5 → 10         (-2.5, allowed ±2)",
      "  messages.lost                  0 → 3          (+3 from 0, allowed ±5%)",
      "  newFigure               (absent) → 1          (not in the baseline)",
      "  perQueue.3.cached             40 → (missing)  (missing from the current run)",
      '  scenario                     "a" → "b"        (must be equal)',
    ]);
  });

  it("stops after `limit` lines with the number left out", () => {
    const lines = formatDrift(drifts, 2).split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[0]).toBe("6 drifts from the baseline (4 changed, 1 missing, 1 added):");
    expect(lines.slice(1, 3).map((l) => l.trim().split(" ")[0])).toEqual(["lag.committed.max", "latency.consume.p99Ms"]);
    expect(lines[3]).toBe("  … and 4 more");
  });

  it("uses the singular for one drift, and quotes and cuts long strings", () => {
    const text = formatDrift([{ path: "traceHash", baseline: "x".repeat(100), current: "", allowed: "equal", kind: "changed" }]);
    expect(text).toBe(`1 drift from the baseline (1 changed):\n  traceHash   "${"x".repeat(39)}…" → ""  (must be equal)`);
  });

  it("formats what compareSummaries returns", () => {
    const text = formatDrift(compareSummaries(baseSummary(), changed((s) => (s.lag.committed.max = 52_310)), FIVE));
    expect(text).toBe("1 drift from the baseline (1 changed):\n  lag.committed.max   41200 → 52310  (+27.0%, allowed ±5%)");
  });
});
