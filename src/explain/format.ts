// Text for the explainer: times as "4m12.050s", counts with thin groups, and the human rendering of an
// Explanation (the CLI prints it; `--json` prints the same object).
import type { Explanation } from "./types.ts";

/** A virtual time or duration: "12.050s", "4m12.050s", "1h02m03.000s" (milliseconds, truncated). */
export function formatTimeUs(us: number): string {
  const ms = Math.floor(Math.max(0, us) / 1000);
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  const sec = s.toFixed(3);
  if (h > 0) return `${h}h${String(m).padStart(2, "0")}m${sec.padStart(6, "0")}s`;
  if (m > 0) return `${m}m${sec.padStart(6, "0")}s`;
  return `${sec}s`;
}

/** 12345 → "12 345" (the README's style for large counts). */
export function formatCount(n: number): string {
  const sign = n < 0 ? "-" : "";
  const digits = String(Math.abs(Math.round(n)));
  return sign + digits.replace(/\B(?=(\d{3})+(?!\d))/g, " ");
}

/** The human account: per queue, its intervals ordered by time, each with the settings that would change it. */
export function renderExplanation(e: Explanation): string {
  const lines: string[] = [];
  lines.push(`${e.scenario} (seed ${e.seed}, profile ${e.profile}, ${formatTimeUs(e.durationUs)} simulated): ${e.queues.length} of ${e.queuesExamined} queue(s) explained`);
  if (e.truncated) lines.push("warning: the trace capture reached its cap; later intervals may be missing — shorten the run (--duration) or name a --queue");
  for (const q of e.queues) {
    lines.push("");
    lines.push(`${q.queue} (group ${q.group}): not progressing for ${formatTimeUs(q.notProgressingUs)} in ${q.intervals.length} interval(s)`);
    if (q.intervals.length === 0) lines.push("  nothing held this queue back");
    for (const i of q.intervals) {
      lines.push(`  ${formatTimeUs(i.startUs)} – ${i.ongoing ? "end of run" : formatTimeUs(i.endUs)}  [${i.reason}, ${i.progress}]`);
      lines.push(`    ${i.sentence}`);
      for (const a of i.settings) lines.push(`    · ${a.direction} ${a.setting}: ${a.effect}`);
    }
  }
  return lines.join("\n") + "\n";
}
