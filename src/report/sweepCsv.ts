// sweep.csv: one row per point, numbers in timeseries.csv's fixed, locale-free format (formatNumber).
//
// Columns: each swept parameter's path (its value at the point), then for every metric the result has
// `<metric>.mean`, `<metric>.ci95` (half-width of the 95 % interval, 0 with one seed) and `<metric>.n`
// (runs), then `feasible` (every requirement held on the means) and `recommended` (true on the one
// recommended point), both `true`/`false`. A point lacking a metric leaves its three cells empty.
import { paramPaths } from "../sweep/grid.ts";
import type { SweepResult } from "../sweep/types.ts";
import { formatNumber } from "./csv.ts";
import { formatParamValue, sweepMetricKeys } from "./sweepLabels.ts";

/** RFC 4180 quoting, only where a field needs it (as csv.ts does; its helper is not exported). */
function field(s: string): string {
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

export function sweepCsvHeader(result: SweepResult): string[] {
  return [
    // A tied parameter (--param a,b=…) gets a column per path.
    ...result.params.flatMap(paramPaths),
    ...sweepMetricKeys(result).flatMap((m) => [`${m}.mean`, `${m}.ci95`, `${m}.n`]),
    "feasible",
    "recommended",
  ];
}

export function renderSweepCsv(result: SweepResult): string {
  const metrics = sweepMetricKeys(result);
  const recommended = result.recommendation?.point ?? null;
  const lines = [sweepCsvHeader(result).map(field).join(",")];
  for (const point of result.points) {
    const cells = [
      ...result.params.flatMap(paramPaths).map((path) => {
        const v = point.params[path];
        return v === undefined ? "" : formatParamValue(v);
      }),
      ...metrics.flatMap((m) => {
        const s = point.stats[m];
        return s ? [formatNumber(s.mean), formatNumber(s.ci95), formatNumber(s.n)] : ["", "", ""];
      }),
      String(point.feasible),
      String(point.index === recommended),
    ];
    lines.push(cells.map(field).join(","));
  }
  return lines.join("\n") + "\n";
}
