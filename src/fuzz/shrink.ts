// Shrinking a failing run to a small scenario that fails the same way (QuickCheck's shrinking, done on
// the scenario JSON). Each step proposes a smaller candidate — fewer faults, a shorter run, shorter and
// earlier faults, fewer instances, fewer queues — runs it, and keeps it only if it fails with the same
// key (the same expectation, or the same invariant class). Passes repeat until one changes nothing or
// the run budget is spent. Deterministic: the candidates come in a fixed order and every run is a pure
// function of its scenario, so the same failure always shrinks to the same scenario.
import { normalizeScenario } from "../scenario/normalize.ts";
import { parseDurationUs } from "../scenario/units.ts";
import { formatUs, type Failure } from "./runner.ts";

/** Runs a candidate and returns its failure, or null if it passes. */
export type FailureProbe = (scenario: Record<string, unknown>) => Failure | null;

export interface ShrinkResult {
  scenario: Record<string, unknown>;
  failure: Failure;
  /** Candidates run (the budget's unit). */
  runs: number;
  /** The steps kept, in order, e.g. "dropped 3 faults", "duration 60000ms → 30000ms". */
  steps: string[];
}

/** Default limit on candidate runs while shrinking. */
export const SHRINK_RUNS_MAX = 150;
/** A run is never shortened below this. */
const DURATION_MIN_US = 1_000_000;
/** Fields of a fault entry that say how long it lasts. */
const LENGTH_KEYS = ["for", "restartAfter", "duration"] as const;

type Scenario = Record<string, unknown>;
type Fault = Record<string, unknown>;

/**
 * Shrinks `failing` (a complete scenario: seed and faults in it), which fails with `failure`. `onKeep`
 * sees each kept candidate (tests check that every one of them fails the same way).
 */
export function shrink(failing: Scenario, failure: Failure, probe: FailureProbe, runsMax = SHRINK_RUNS_MAX, onKeep?: (scenario: Scenario, step: string) => void): ShrinkResult {
  const s = new Shrinker(failing, failure, probe, runsMax, onKeep);
  for (let pass = 0; s.budgetLeft(); pass++) {
    const before = s.steps.length;
    s.dropFaults();
    s.shortenRun();
    s.shortenFaults();
    s.moveFaultsEarlier();
    s.shortenRun();
    s.reduceInstances();
    s.reduceQueues();
    if (s.steps.length === before) break;
  }
  return { scenario: s.current, failure: s.failure, runs: s.runs, steps: s.steps };
}

class Shrinker {
  runs = 0;
  readonly steps: string[] = [];

  constructor(
    public current: Scenario,
    public failure: Failure,
    private readonly probe: FailureProbe,
    private readonly runsMax: number,
    private readonly onKeep?: (scenario: Scenario, step: string) => void,
  ) {}

  budgetLeft(): boolean {
    return this.runs < this.runsMax;
  }

  /** Keeps `candidate` if it is valid and fails with the same key; true if kept. */
  private attempt(candidate: Scenario, step: string): boolean {
    if (!this.budgetLeft()) return false;
    try {
      normalizeScenario(candidate);
    } catch {
      return false; // e.g. a fault aimed at a queue that no longer exists: not a candidate
    }
    this.runs++;
    const f = this.probe(candidate);
    if (f === null || f.key !== this.failure.key) return false;
    this.current = candidate;
    this.failure = f;
    this.steps.push(step);
    this.onKeep?.(candidate, step);
    return true;
  }

  private faults(): Fault[] {
    return (this.current.faults as Fault[] | undefined) ?? [];
  }

  private withFaults(faults: Fault[]): Scenario {
    return { ...this.current, faults };
  }

  /** ddmin's outer loop: drop chunks of n/2, n/4, … 1 faults, from the last chunk back (so a kept drop
   * leaves the indexes of the chunks still to try unchanged). */
  dropFaults(): void {
    for (let size = Math.ceil(this.faults().length / 2); size >= 1 && this.budgetLeft(); size = size === 1 ? 0 : Math.ceil(size / 2)) {
      for (let start = this.faults().length - size; start + size > 0 && this.budgetLeft(); start -= size) {
        const fs = this.faults();
        const from = Math.max(0, start);
        const to = Math.min(start + size, fs.length);
        if (to <= from) continue;
        this.attempt(this.withFaults([...fs.slice(0, from), ...fs.slice(to)]), `dropped ${to - from} fault(s): ${fs.slice(from, to).map(label).join(", ")}`);
      }
    }
  }

  /** Halves the run while it still fails (never below the last fault's start nor DURATION_MIN_US). */
  shortenRun(): void {
    for (;;) {
      const durationUs = parseDurationUs(this.current.duration, "duration");
      const lastAtUs = Math.max(0, ...this.faults().map((f) => usOf(f.at) ?? 0));
      const next = Math.max(DURATION_MIN_US, lastAtUs, roundMs(durationUs / 2));
      if (next >= durationUs) return;
      if (!this.attempt({ ...this.current, duration: formatUs(next) }, `duration ${formatUs(durationUs)} → ${formatUs(next)}`)) return;
    }
  }

  /** Cuts each fault's length (for, restartAfter, a hang's duration) to 1 ms, or else halves it while it still fails. */
  shortenFaults(): void {
    for (let i = 0; i < this.faults().length; i++) {
      for (const key of LENGTH_KEYS) {
        const us = usOf(this.faults()[i]![key]);
        if (us === null || us <= 1000) continue;
        const set = (v: number, from: number) => {
          const f = this.faults()[i]!;
          return this.attempt(this.replaceFault(i, { ...f, [key]: formatUs(v) }), `${label(f)}: ${key} ${formatUs(from)} → ${formatUs(v)}`);
        };
        if (set(1000, us)) continue;
        for (let from = us, v = roundMs(us / 2); v > 1000 && v < from && set(v, from); from = v, v = roundMs(v / 2));
      }
    }
  }

  /** Moves each fault to the start of the run, or else halfway there, while it still fails. */
  moveFaultsEarlier(): void {
    for (let i = 0; i < this.faults().length; i++) {
      for (;;) {
        const f = this.faults()[i]!;
        const at = usOf(f.at);
        if (at === null || at === 0) break;
        if (this.attempt(this.replaceFault(i, { ...f, at: "0ms" }), `${label(f)}: at ${formatUs(at)} → 0ms`)) break;
        const next = roundMs(at / 2);
        if (next >= at || !this.attempt(this.replaceFault(i, { ...f, at: formatUs(next) }), `${label(f)}: at ${formatUs(at)} → ${formatUs(next)}`)) break;
      }
    }
  }

  /** Fewer instances per group: one, else one fewer at a time. */
  reduceInstances(): void {
    const groups = (this.current.groups as Record<string, unknown>[] | undefined) ?? [];
    for (let g = 0; g < groups.length; g++) {
      this.reduceCount("groups", g, "instances", 1);
    }
  }

  /** Fewer queues per broker for each topic: one, else half. */
  reduceQueues(): void {
    const topics = (this.current.topics as Record<string, unknown>[] | undefined) ?? [];
    for (let t = 0; t < topics.length; t++) {
      this.reduceCount("topics", t, "queuesPerBroker", 4);
    }
  }

  /** Tries `list[i][key]` = 1, then repeatedly the value less max(1, value / 2) (queues) or less 1. */
  private reduceCount(list: "groups" | "topics", i: number, key: string, defaultValue: number): void {
    for (;;) {
      const entries = this.current[list] as Record<string, unknown>[];
      const entry = entries[i]!;
      const value = typeof entry[key] === "number" ? (entry[key] as number) : defaultValue;
      if (value <= 1) return;
      const name = `${list}.${i}.${key}`;
      const replace = (v: number) => ({ ...this.current, [list]: entries.map((e, j) => (j === i ? { ...e, [key]: v } : e)) });
      if (this.attempt(replace(1), `${name} ${value} → 1`)) return;
      const next = list === "topics" ? Math.max(1, Math.floor(value / 2)) : value - 1;
      if (next <= 1 || !this.attempt(replace(next), `${name} ${value} → ${next}`)) return;
    }
  }

  private replaceFault(i: number, f: Fault): Scenario {
    return this.withFaults(this.faults().map((x, j) => (j === i ? f : x)));
  }
}

function label(f: Fault): string {
  const target = f.target ?? f.group ?? `${JSON.stringify(f.clients ?? "*")}↔${JSON.stringify(f.brokers ?? "*")}`;
  return `${String(f.kind)} ${String(target)} at ${String(f.at)}`;
}

/** A duration field in µs, or null when absent or not a duration ("forever", "unflushed"). */
function usOf(v: unknown): number | null {
  if (v === undefined) return null;
  try {
    return parseDurationUs(v, "");
  } catch {
    return null;
  }
}

function roundMs(us: number): number {
  return Math.round(us / 1000) * 1000;
}
