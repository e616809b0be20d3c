// timeseries.csv: one row per sample, numbers in one fixed, locale-free format (see README.md).
import type { TimeSeries } from "../metrics/Sampler.ts";
import { SERIES_COLUMNS } from "../scenario/vocabulary.ts";

/**
 * Integers as integers, anything else rounded to 3 decimals with trailing zeros dropped; never an
 * exponent, never a locale's separators, "-0" printed as "0". Non-finite values are left empty.
 */
export function formatNumber(v: number): string {
  if (!Number.isFinite(v)) return "";
  const r = Math.round(v * 1000) / 1000;
  if (Number.isInteger(r)) {
    if (r === 0) return "0";
    // toString switches to exponent notation at 1e21; BigInt never does.
    return Math.abs(r) < 1e21 ? r.toString() : BigInt(r).toString();
  }
  return r.toFixed(3).replace(/0+$/, "");
}

/** RFC 4180 quoting, only where a field needs it. */
function field(s: string): string {
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

export function timeSeriesHeader(series: TimeSeries): string[] {
  return [
    ...SERIES_COLUMNS,
    ...series.perQueue.map((q) => `cached:${q.label}`),
    ...series.perConsumer.map((c) => `cachedBytes:${c.clientId}`),
    ...series.perConsumer.map((c) => `queues:${c.clientId}`),
    ...series.perConsumer.map((c) => `poolBusy:${c.clientId}`),
    ...(series.perNode ?? []).map((n) => `servedPerSec:${n.name}`),
  ];
}

export function renderTimeSeriesCsv(series: TimeSeries): string {
  const columns: readonly (readonly number[])[] = [
    ...SERIES_COLUMNS.map((c) => series.columns[c]),
    ...series.perQueue.map((q) => q.cached),
    ...series.perConsumer.map((c) => c.cachedBytes),
    ...series.perConsumer.map((c) => c.queues),
    ...series.perConsumer.map((c) => c.poolBusy),
    ...(series.perNode ?? []).map((n) => n.servedPerSec),
  ];
  const rows = series.columns.tSec.length;
  const lines = [timeSeriesHeader(series).map(field).join(",")];
  for (let i = 0; i < rows; i++) {
    lines.push(columns.map((col) => formatNumber(col[i] ?? Number.NaN)).join(","));
  }
  return lines.join("\n") + "\n";
}
