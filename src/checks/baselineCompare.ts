// `rmqsim check --baseline`: a run's summary against its stored baseline, direction-aware (issue 17).
// Pure: the CLI reads both files and prints formatBaseline's text.
//
// Each figure knows which way is better (baselineRules.ts DIRECTION_RULES):
//   - a change the bad way beyond the worse-direction tolerance is a failure ("worse");
//   - a change the good way beyond the better-direction tolerance is reported as "improved", a failure
//     only with `strict` (--strict-baseline);
//   - a neutral figure (a count) fails beyond the worse-direction tolerance either way ("changed");
//   - text and booleans must be equal; a figure gone from the run is a failure ("missing");
//   - a figure new in the run (absent from the baseline) is "new, not compared", never a failure;
//   - end-of-run snapshots (SNAPSHOT_RULES) are skipped, or compared with an absolute tolerance.
// --tolerance-for overrides (and DEFAULT_OVERRIDES) apply to both directions of the figures they match.
import {
  comparePaths, DEFAULT_IGNORES, formatTolerance, leafPairs, ruleAt, toleranceRules, withinTolerance,
  type LeafValue, type Tolerance,
} from "./baseline.ts";
import { directionOf, snapshotRuleOf, type Direction } from "./baselineRules.ts";

export interface BaselineOptions {
  /** Allowed change in the bad direction (and either way for neutral figures). */
  worse: Tolerance;
  /** Allowed change in the good direction before it is reported as improved. */
  better: Tolerance;
  /** --tolerance-for: per path or prefix, both directions. */
  overrides?: Record<string, Tolerance>;
  /** --strict-baseline: an improvement beyond `better` fails too. */
  strict?: boolean;
}

export interface FigureChange {
  path: string;
  baseline: LeafValue;
  current: LeafValue;
  direction: Direction;
  /** worse / better: beyond the tolerance the bad / good way; changed: a neutral figure or text beyond
   * its tolerance; missing: gone from the current run. */
  kind: "worse" | "better" | "changed" | "missing";
  /** The rule applied: "±5%", "±120 (5% of the baseline's lag.committed.max)", "equal". */
  allowed: string;
}

export interface BaselineComparison {
  /** Figures compared (numbers, text, booleans). */
  compared: number;
  /** Snapshot figures not compared, with the reason. */
  skipped: { path: string; why: string }[];
  /** Figures of the run the baseline lacks: new, not compared. */
  added: string[];
  /** What fails the check: worse, changed, missing — and improved under `strict`. Sorted by path. */
  failures: FigureChange[];
  /** Improvements beyond the better-direction tolerance (also in failures under `strict`). */
  improved: FigureChange[];
  /** Among compared numbers, the change that used most of its allowance the bad way (or either way for
   * a neutral figure); null when nothing moved. */
  worst: FigureChange | null;
}

export function compareBaseline(baseline: unknown, current: unknown, options: BaselineOptions): BaselineComparison {
  const rules = toleranceRules(options.worse, options.overrides);
  toleranceRules(options.better);
  const pairs = leafPairs(baseline, current, DEFAULT_IGNORES);
  const baseValues = new Map(pairs.map((p) => [p.path.join("."), p.baseline]));
  const out: BaselineComparison = { compared: 0, skipped: [], added: [], failures: [], improved: [], worst: null };
  let worstUse = 0;
  for (const pair of pairs) {
    const path = pair.path.join(".");
    if (pair.kind === "added") {
      out.added.push(path);
      continue;
    }
    const direction = directionOf(pair.path)?.direction ?? "neutral";
    const override = ruleAt(rules, pair.path);
    const snapshot = snapshotRuleOf(pair.path);
    // A --tolerance-for at least as precise as the snapshot rule compares the figure after all.
    const overridden = override !== null && snapshot !== null && override.pattern.segments.length >= snapshot.path.split(".").length;
    if (snapshot !== null && snapshot.scaleOf === undefined && !overridden) {
      out.skipped.push({ path, why: snapshot.why });
      continue;
    }
    const b = pair.baseline;
    const c = pair.current;
    if (pair.kind === "missing") {
      out.failures.push({ path, baseline: b, current: null, direction, kind: "missing", allowed: "present" });
      continue;
    }
    out.compared++;
    if (typeof b !== "number" || typeof c !== "number") {
      if (b !== c) out.failures.push({ path, baseline: b, current: c, direction, kind: "changed", allowed: "equal" });
      continue;
    }
    let worse = override?.tolerance ?? options.worse;
    let better = override?.tolerance ?? options.better;
    let allowedNote = "";
    if (snapshot?.scaleOf !== undefined && !overridden) {
      const scale = baseValues.get(snapshot.scaleOf);
      const amount = worse.kind === "relative" ? worse.fraction * Math.abs(typeof scale === "number" ? scale : b) : worse.amount;
      allowedNote = worse.kind === "relative" ? ` (${formatTolerance(worse).slice(1)} of the baseline's ${snapshot.scaleOf})` : "";
      worse = better = { kind: "absolute", amount };
    }
    const delta = c - b;
    const bad = direction === "neutral" || (direction === "lower" ? delta > 0 : delta < 0);
    const tolerance = bad ? worse : better;
    const change: FigureChange = { path, baseline: b, current: c, direction, kind: direction === "neutral" ? "changed" : bad ? "worse" : "better", allowed: `${formatTolerance(tolerance)}${allowedNote}` };
    if (bad && delta !== 0) {
      const use = allowanceUsed(b, c, tolerance);
      if (use > worstUse) {
        worstUse = use;
        out.worst = change;
      }
    }
    if (withinTolerance(b, c, tolerance)) continue;
    if (bad) out.failures.push(change);
    else {
      out.improved.push(change);
      if (options.strict) out.failures.push(change);
    }
  }
  out.failures.sort((x, y) => comparePaths(x.path, y.path));
  return out;
}

/** |change| as a share of what the tolerance allows (Infinity when it allows nothing). */
function allowanceUsed(b: number, c: number, t: Tolerance): number {
  const limit = t.kind === "relative" ? t.fraction * Math.abs(b) : t.amount;
  return limit === 0 ? Infinity : Math.abs(c - b) / limit;
}

/**
 * What was compared and what moved, e.g.
 *
 *   baseline ci/baselines/tiny.seed-1.summary.json: 212 figures compared, 31 skipped (end-of-run snapshots), 1 new (not compared)
 *   worst drift: lag.committed.max 41200 → 52310 (+27.0%, lower is better, allowed ±5%)
 *   ✗ lag.committed.max 41200 → 52310 (+27.0%, lower is better, allowed ±5%)
 *   improved: throughput.consumedPerSec.mean 3000 → 3300 (+10.0%, higher is better, beyond ±5%; not a failure without --strict-baseline)
 *   new, not compared: heapEstimateMiB
 */
export function formatBaseline(c: BaselineComparison, file: string, strict = false, limit = 20): string {
  const lines = [
    `baseline ${file}: ${c.compared} figures compared, ${c.skipped.length} skipped (end-of-run snapshots), ${c.added.length} new (not compared)`,
    c.worst === null ? "worst drift: none, every compared figure is unchanged or better" : `worst drift: ${describe(c.worst)}`,
  ];
  const list = (items: readonly FigureChange[], head: (f: FigureChange) => string) => {
    for (const f of items.slice(0, limit)) lines.push(head(f));
    if (items.length > limit) lines.push(`  … and ${items.length - limit} more`);
  };
  list(c.failures, (f) => `✗ ${describe(f)}`);
  if (!strict) list(c.improved, (f) => `improved: ${describe(f)}; not a failure without --strict-baseline`);
  if (c.added.length > 0) lines.push(`new, not compared: ${c.added.slice(0, limit).join(", ")}${c.added.length > limit ? `, … and ${c.added.length - limit} more` : ""}`);
  return lines.join("\n");
}

function describe(f: FigureChange): string {
  if (f.kind === "missing") return `${f.path} ${show(f.baseline)} → (missing from the run)`;
  if (typeof f.baseline !== "number" || typeof f.current !== "number") return `${f.path} ${show(f.baseline)} → ${show(f.current)} (must be equal)`;
  const delta = f.current - f.baseline;
  const change = f.baseline !== 0 ? `${delta >= 0 ? "+" : ""}${((delta / Math.abs(f.baseline)) * 100).toFixed(1)}%` : `${delta >= 0 ? "+" : ""}${delta} from 0`;
  const way = f.direction === "higher" ? "higher is better" : f.direction === "lower" ? "lower is better" : "neither way is better";
  return `${f.path} ${show(f.baseline)} → ${show(f.current)} (${change}, ${way}, ${f.kind === "better" ? "beyond" : "allowed"} ${f.allowed})`;
}

function show(v: LeafValue): string {
  return typeof v === "string" ? JSON.stringify(v) : String(v);
}
