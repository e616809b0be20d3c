// A scenario's `expect` list: strings in the expectation language (expectParser.ts), parsed against
// the names the scenario's summary will have. Errors are InputErrors at `expect.<i>`.
import { InputError } from "./errors.ts";
import { ExpectError, parseExpectation, type ExpectNames, type Expectation, type ExprNode } from "./expectParser.ts";
import type { GroupModel } from "./types.ts";
import { groupFigureNames, SUMMARY_FIGURES } from "./vocabulary.ts";
import { pullCodeFigureNames } from "./pullCodeNames.ts";

/** Most expectations a scenario may list: each is evaluated over every sample of the run. */
export const EXPECTATIONS_MAX = 1000;

/** The run an expectation is judged on: its duration and sample period, µs (after --duration / --set). */
export interface ExpectRun {
  durationUs: number;
  sampleEveryUs: number;
}

/**
 * Parses the `expect` list; with `run`, also refuses a window or time that holds no sample of the
 * run (checkWindows), so `mean(x, 90s..)` under `--duration 30s` is a validation error, not NaN.
 */
export function parseScenarioExpectations(raw: unknown, groups: readonly GroupModel[], run?: ExpectRun): { expect: string[]; expectations: Expectation[] } {
  if (raw === undefined) return { expect: [], expectations: [] };
  if (!Array.isArray(raw) || raw.some((e) => typeof e !== "string")) throw new InputError("expect", "must be a list of strings");
  if (raw.length > EXPECTATIONS_MAX) throw new InputError("expect", `lists ${raw.length} expectations; at most ${EXPECTATIONS_MAX} are allowed`);
  const expect = raw as string[];
  const names = expectNames(groups);
  const expectations = expect.map((e, i) => {
    try {
      return parseExpectation(e, names);
    } catch (err) {
      if (err instanceof ExpectError) throw new InputError(`expect.${i}`, err.message);
      throw err;
    }
  });
  if (run !== undefined) expectations.forEach((e, i) => checkWindows(e, i, run));
  return { expect, expectations };
}

/**
 * The run is sampled at sampleEvery, 2 × sampleEvery, … up to its duration (at the duration itself
 * when it is shorter than sampleEvery): every window of an aggregate, first(…) or never(…) must hold one
 * of those samples, and an at(…) time must lie between the first sample and the end of the run.
 * Otherwise the expression has no value (an aggregate is NaN, first(…) is never, never(…) holds
 * vacuously) — a mistake to say at validation, naming the expression, the window and the duration.
 */
function checkWindows(e: Expectation, index: number, run: ExpectRun): void {
  const lastUs = run.durationUs < run.sampleEveryUs ? run.durationUs : Math.floor(run.durationUs / run.sampleEveryUs) * run.sampleEveryUs;
  const firstUs = Math.min(run.sampleEveryUs, run.durationUs);
  const fail = (what: string) => {
    throw new InputError(`expect.${index}`, `${JSON.stringify(e.source)}: ${what}; the run lasts ${showUs(run.durationUs)} (duration), sampled every ${showUs(run.sampleEveryUs)} (sampleEvery)`);
  };
  const window = (label: string, from: number, to: number) => {
    const fromUs = from === -Infinity ? 0 : Math.round(from * 1000);
    const toUs = to === Infinity ? Infinity : Math.round(to * 1000);
    const text = `${from === -Infinity ? "" : showUs(fromUs)}..${to === Infinity ? "" : showUs(toUs)}`;
    if (fromUs > run.durationUs) fail(`the window ${text} of ${label} starts after the run ends`);
    // The first sample at or after the window's start.
    const k = Math.max(1, Math.ceil(fromUs / run.sampleEveryUs));
    const sampleUs = run.durationUs < run.sampleEveryUs ? run.durationUs : k * run.sampleEveryUs;
    if (sampleUs > lastUs) fail(`the window ${text} of ${label} holds no sample: the last is at ${showUs(lastUs)}`);
    if (sampleUs > toUs) fail(`the window ${text} of ${label} holds no sample: the nearest are at ${k > 1 ? `${showUs(sampleUs - run.sampleEveryUs)} and ` : ""}${showUs(sampleUs)}`);
  };
  const node = (n: ExprNode): void => {
    if (n.k === "neg") node(n.e);
    else if (n.k === "chain") [n.first, ...n.rest.map((x) => x.e)].forEach(node);
    else if (n.k === "agg") window(`${n.fn}(${n.label}, …)`, n.from, n.to);
    else if (n.k === "first") window(`first(${n.cond.text}, …)`, n.from, n.to);
    else if (n.k === "at") {
      const atUs = Math.round(n.atMs * 1000);
      if (atUs > run.durationUs) fail(`at(${n.label}, ${showUs(atUs)}) is after the run ends`);
      if (atUs < firstUs) fail(`at(${n.label}, ${showUs(atUs)}) is before the first sample, at ${showUs(firstUs)}`);
    }
  };
  for (const c of e.clauses) {
    node(c.cond.l);
    node(c.cond.r);
    if (c.k === "never") window(`never(${c.cond.text}, …)`, c.from, c.to);
  }
}

/** µs as a duration text, seconds from 1 s up (90s, 5.2s, 250ms, 1500us). */
function showUs(us: number): string {
  if (us >= 1_000_000 && us % 1000 === 0) return `${us / 1_000_000}s`;
  if (us % 1000 === 0) return `${us / 1000}ms`;
  return `${us}us`;
}

const EXPECT_NAMES: ExpectNames = { summaryPaths: SUMMARY_FIGURES };
/**
 * Names an expectation may refer to: every numeric figure of the summary, and with the scenario's
 * groups `groups.<group>.<figure>` (and `groups.<group>.instances.<i>.<figure>` for BROADCASTING), and
 * each group's pull answers `groups.<group>.pulls.byCode.<code name>` (pullCodeNames.ts).
 */
export function expectNames(groups?: readonly GroupModel[]): ExpectNames {
  if (groups === undefined || groups.length === 0) return EXPECT_NAMES;
  return { summaryPaths: [...SUMMARY_FIGURES, ...groupFigureNames(groups), ...pullCodeFigureNames(groups)] };
}
