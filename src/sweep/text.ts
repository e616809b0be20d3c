// How the sweep names points, parameters and figures in sentences (the recommendation's reason and
// warnings). Pure string helpers shared by recommend.ts and warnings.ts.
import type { SweepParam, SweepPoint } from "./types.ts";

/** "pullThresholdForQueue=200, consumeThreadMax=20"; "the base scenario" when nothing is swept. */
export function label(point: SweepPoint, params: readonly SweepParam[], names: Record<string, string>): string {
  if (params.length === 0) return "the base scenario";
  return params.map((p) => `${names[p.path]}=${String(point.params[p.path])}`).join(", ");
}

/**
 * Each parameter's name: a path's last segment when no other swept path ends the same way and it is
 * not a list index, else the whole path; a tied parameter (`--param a,b=…`) joins its paths' names
 * with commas ("consumeThreadMin,consumeThreadMax").
 */
export function shortNames(params: readonly SweepParam[]): Record<string, string> {
  const last = (path: string) => path.split(".").pop()!;
  const all = params.flatMap((p) => [p.path, ...(p.tied ?? [])]);
  const nameOf = (path: string) => {
    const short = last(path);
    const unique = all.filter((q) => last(q) === short).length === 1;
    return unique && !/^\d+$/.test(short) ? short : path;
  };
  const out: Record<string, string> = {};
  for (const p of params) out[p.path] = [p.path, ...(p.tied ?? [])].map(nameOf).join(",");
  return out;
}

/** A figure for a sentence: integers as they are, others to 4 significant digits (1 decimal from 100). */
export function fmt(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (Number.isInteger(v)) return String(v);
  return Math.abs(v) >= 100 ? v.toFixed(1).replace(/\.0$/, "") : String(Number(v.toPrecision(4)));
}

/** 0.05 → "5 %". */
export function pct(fraction: number): string {
  return `${Number((fraction * 100).toPrecision(6))} %`;
}

/** Words for the default tie-breakers' metrics; the key for any other. */
export function metricName(metric: string): string {
  return metric === "latency.endToEnd.p99Ms" ? "p99 end-to-end latency" : metric === "lag.committed.max" ? "peak committed lag" : metric;
}

/** A point has data when at least one complete run went into its statistics. */
export function hasData(point: SweepPoint): boolean {
  return Object.values(point.stats).some((s) => s.n > 0);
}
