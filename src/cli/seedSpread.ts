// `check --seeds N`: how much the figures that depend on timing and chance move between seeds — with
// random start phases (the default) orphan times, pull-expiry periods and replays differ per seed, and a
// passing expectation under one seed says little about the next. One line per scenario run under 2+ seeds.
import type { Summary } from "../metrics/summary.ts";

/** The figures shown, with how each is read from a summary. */
const FIGURES: readonly [string, (s: Summary) => number][] = [
  ["duplicates", (s) => s.messages.duplicates],
  ["lost", (s) => s.messages.lost],
  ["orphanQueueSeconds", (s) => s.orphanQueueSeconds],
  ["lag.committed.max", (s) => s.lag.committed.max],
  ["latency.endToEnd.p99Ms", (s) => s.latency.endToEnd.p99Ms],
];

/** "spread over 5 seeds: duplicates 12–40, lost 0, …" per scenario, for scenarios run under 2+ seeds. */
export function formatSeedSpread(runs: readonly { name: string; summary: Summary | null }[]): string {
  const byName = new Map<string, Summary[]>();
  for (const r of runs) {
    if (r.summary === null) continue;
    let list = byName.get(r.name);
    if (!list) byName.set(r.name, (list = []));
    list.push(r.summary);
  }
  let out = "";
  for (const [name, summaries] of byName) {
    if (summaries.length < 2) continue;
    const parts = FIGURES.map(([label, read]) => {
      const values = summaries.map(read);
      const lo = fmt(Math.min(...values));
      const hi = fmt(Math.max(...values));
      return lo === hi ? `${label} ${lo}` : `${label} ${lo}–${hi}`;
    });
    out += `spread  ${name} over ${summaries.length} seeds: ${parts.join(", ")}\n`;
  }
  return out;
}

function fmt(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toFixed(1);
}
