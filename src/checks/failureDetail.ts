// A failed expectation, said so that CI output can be acted on (issue 17): for each clause that did
// not hold, its threshold and actual value, by how much it missed, and for a time-series expression
// when (the deciding sample, the window) and where (the worst queue or instance). Pure text from the
// ClauseDetail data (src/scenario/expectDetail.ts); `rmqsim check` prints it and JUnit carries it.
import type { ClauseDetail } from "../scenario/expectDetail.ts";
import type { ExpectResult } from "../scenario/expect.ts";

/**
 * One line per failed clause, e.g.
 *   `max(lag.committed, 5s..) < 1000: actual 24046, threshold < 1000 (over by 23046), at 20s, window 5s..20s`
 *   `max(cache.countPerQueueMax) < 1000: actual 1024, threshold < 1000 (over by 24), at 9s, window 0s..20s, queue TopicTest@broker-a#0, 1024 cached`
 */
export function failureLines(e: Pick<ExpectResult, "ok" | "clauses">): string[] {
  if (e.ok) return [];
  return (e.clauses ?? []).filter((c) => !c.ok).map(describeClause);
}

export function describeClause(d: ClauseDetail): string {
  const parts: string[] = [];
  const ms = d.unit === "ms";
  const show = (v: number) => (ms ? seconds(v * 1000) : number(v));
  // A null actual is a figure without a value, or a first(…) that never held.
  parts.push(`actual ${d.actual === null ? (ms ? "never" : "no value") : show(d.actual)}`);
  const miss = d.actual !== null && d.threshold !== null ? missedBy(d.op, d.actual, d.threshold, show) : "";
  parts.push(`threshold ${d.op} ${d.threshold === null ? "no value" : show(d.threshold)}${miss === "" ? "" : ` (${miss})`}`);
  if (d.atUs !== null) parts.push(`at ${seconds(d.atUs)}`);
  if (d.windowUs !== null) parts.push(`window ${seconds(d.windowUs[0])}..${seconds(d.windowUs[1])}`);
  if (d.where !== null) parts.push(d.where);
  return `${d.text}: ${parts.join(", ")}`;
}

/** "over by 24" for an upper bound missed, "under by 4200" for a lower one; "" for == and !=. */
function missedBy(op: ClauseDetail["op"], actual: number, threshold: number, show: (v: number) => string): string {
  const gap = show(Math.abs(actual - threshold));
  if (op === "<" || op === "<=") return `over by ${gap}`;
  if (op === ">" || op === ">=") return `under by ${gap}`;
  return op === "==" ? `off by ${gap}` : "";
}

/** µs of virtual time as seconds, "12s", "12.5s", "0.001s". */
export function seconds(us: number): string {
  return `${Number((us / 1e6).toFixed(6))}s`;
}

function number(v: number): string {
  return Number.isInteger(v) ? String(v) : String(Number(v.toFixed(3)));
}
