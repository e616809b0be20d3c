// Progress on stderr: a redrawn bar on a terminal; with --progress and no terminal, a plain line now
// and then (for CI logs); otherwise nothing.
import type { Progress } from "./computeRun.ts";
import type { TermOut } from "./env.ts";

/** Least wall time between two plain progress lines, ms. */
const LINE_EVERY_MS = 5000;
const BAR_WIDTH = 24;

export interface ProgressView {
  update(progress: Progress): void;
  /** Clears the bar (if any) so the next output starts on a clean line. */
  done(): void;
}

export type ProgressMode = "bar" | "lines" | "off";

export function progressMode(stderr: TermOut, quiet: boolean, forced: boolean): ProgressMode {
  if (quiet) return "off";
  if (stderr.isTTY) return "bar";
  return forced ? "lines" : "off";
}

/** One line: bar, share of virtual time, events per wall second and the estimated time left. */
export function formatProgress(p: Progress, barWidth = BAR_WIDTH): string {
  const share = p.totalUs > 0 ? Math.min(1, p.simulatedUs / p.totalUs) : 1;
  const filled = Math.round(share * barWidth);
  const bar = `[${"#".repeat(filled)}${"-".repeat(barWidth - filled)}]`;
  const wallSec = p.wallMs / 1000;
  const rate = wallSec > 0 ? p.events / wallSec : 0;
  const etaMs = share > 0 ? (p.wallMs * (1 - share)) / share : NaN;
  const eta = Number.isFinite(etaMs) ? formatClock(etaMs * 1000) : "?";
  return (
    `${bar} ${(share * 100).toFixed(1).padStart(5)}%  ${formatClock(p.simulatedUs)} of ${formatClock(p.totalUs)}` +
    `  ${formatCount(rate)} events/s  ETA ${eta}`
  );
}

/** Whole seconds as a clock reads: "45s", "1m05s", "2h03m"; below a second, "0s"…, so it never jitters. */
export function formatClock(us: number): string {
  const sec = Math.round(us / 1e6);
  if (sec < 60) return `${sec}s`;
  const two = (x: number) => String(x).padStart(2, "0");
  if (sec < 3600) return `${Math.floor(sec / 60)}m${two(sec % 60)}s`;
  return `${Math.floor(sec / 3600)}h${two(Math.floor(sec / 60) % 60)}m`;
}

export function progressView(stderr: TermOut, mode: ProgressMode): ProgressView {
  if (mode === "off") return { update: () => {}, done: () => {} };
  if (mode === "lines") {
    let lastMs = -Infinity;
    return {
      update: (p) => {
        if (p.wallMs - lastMs < LINE_EVERY_MS) return;
        lastMs = p.wallMs;
        stderr.write(`rmqsim: ${formatProgress(p)}\n`);
      },
      done: () => {},
    };
  }
  let drawn = false;
  return {
    update: (p) => {
      const line = formatProgress(p);
      const width = stderr.columns ?? 100;
      // \r returns to column 0 and ESC[K clears the rest, so a shorter line leaves no tail behind.
      stderr.write(`\r${line.slice(0, Math.max(10, width - 1))}\x1b[K`);
      drawn = true;
    },
    done: () => {
      if (drawn) stderr.write("\r\x1b[K");
      drawn = false;
    },
  };
}

/** 950 → "950", 12_300 → "12.3k", 4_560_000 → "4.56M". */
export function formatCount(x: number): string {
  if (x >= 1e9) return `${(x / 1e9).toPrecision(3)}G`;
  if (x >= 1e6) return `${(x / 1e6).toPrecision(3)}M`;
  if (x >= 1e4) return `${(x / 1e3).toPrecision(3)}k`;
  return String(Math.round(x));
}
