// Expectations on the charts (issue 17, "a report that opens with the verdict"): which chart shows the
// series an expectation clause reads, and its threshold as a line there — horizontal for a value, or
// vertical for a time (`first(…) < 10s`). The clause details come from evaluateExpectation
// (ClauseDetail, src/scenario/expectDetail.ts); this only places them.
import type { ExpectResult } from "../scenario/expect.ts";
import type { ClauseDetail } from "../scenario/expectDetail.ts";
import { SERIES_ALIASES, SERIES_COLUMNS, type SeriesColumn } from "../scenario/vocabulary.ts";

/** A horizontal reference line (a threshold), drawn dashed across the whole x range. */
export interface ChartLineSpec {
  key: string;
  label: string;
  axis: "y" | "y2";
  value: number;
  color: string;
  /** A time instead: a vertical line at `value` seconds (an expectation's `first(…) < 10s`). */
  vertical?: boolean;
}

const MIB = 1024 * 1024;
export const EXPECT_OK_COLOR = "#2e7d32";
export const EXPECT_FAILED_COLOR = "#c2185b";

/** Where each series column is drawn: the chart, its axis, and the factor from the column's unit to the axis's. */
const PLACE: Partial<Record<SeriesColumn, { chart: string; axis: "y" | "y2"; scale: number }>> = {
  producedPerSec: { chart: "throughput", axis: "y", scale: 1 },
  consumedPerSec: { chart: "throughput", axis: "y", scale: 1 },
  lagCommitted: { chart: "lag", axis: "y", scale: 1 },
  lagUnpulled: { chart: "lag", axis: "y", scale: 1 },
  cached: { chart: "lag", axis: "y2", scale: 1 },
  cachedPerQueueMax: { chart: "cache", axis: "y", scale: 1 },
  cachedBytes: { chart: "cache", axis: "y2", scale: 1 / MIB },
  flowControlCountPerSec: { chart: "flow-control", axis: "y", scale: 1 },
  flowControlSizePerSec: { chart: "flow-control", axis: "y", scale: 1 },
  flowControlSpanPerSec: { chart: "flow-control", axis: "y", scale: 1 },
  flowControlPausedPerSec: { chart: "flow-control", axis: "y", scale: 1 },
  endToEndP50Ms: { chart: "latency", axis: "y", scale: 1 },
  endToEndP99Ms: { chart: "latency", axis: "y", scale: 1 },
  cachedBytesPerConsumerMax: { chart: "consumers", axis: "y", scale: 1 / MIB },
};

/** The chart (and axis) that draws the series a clause reads, by the name written in the expression; null: none does. */
export function placeOf(series: string | null): { chart: string; axis: "y" | "y2"; scale: number } | null {
  if (series === null) return null;
  const column = SERIES_ALIASES[series] ?? ((SERIES_COLUMNS as readonly string[]).includes(series) ? (series as SeriesColumn) : undefined);
  return column === undefined ? null : (PLACE[column] ?? null);
}

/**
 * Every clause's threshold as a line on its series' chart, by chart id: a value on the series' axis, a
 * time (`first(…)`, unit ms) as a vertical line at that time. Clauses of a summary figure, or of a series
 * no chart draws, get none. Green when the clause held, magenta when it failed.
 */
export function expectationLines(expectations: readonly ExpectResult[]): Map<string, ChartLineSpec[]> {
  const out = new Map<string, ChartLineSpec[]>();
  expectations.forEach((e, ei) => {
    (e.clauses ?? []).forEach((c, ci) => {
      const place = placeOf(c.series);
      if (place === null || c.threshold === null) return;
      const line: ChartLineSpec = {
        key: `expect:${ei}:${ci}`,
        label: `${c.ok ? "expect" : "FAILED"}: ${c.text}`,
        axis: place.axis,
        value: c.unit === "ms" ? c.threshold / 1000 : c.threshold * place.scale,
        color: c.ok ? EXPECT_OK_COLOR : EXPECT_FAILED_COLOR,
        ...(c.unit === "ms" ? { vertical: true } : {}),
      };
      out.set(place.chart, [...(out.get(place.chart) ?? []), line]);
    });
  });
  return out;
}

/** The failed clauses of an expectation (all of them when it failed without clause details). */
export function failedClauses(e: ExpectResult): ClauseDetail[] {
  return (e.clauses ?? []).filter((c) => !c.ok);
}
