import { describe, expect, it } from "vitest";
import { formatClock, formatCount, formatProgress, progressMode, progressView } from "./progress.ts";

describe("progress", () => {
  it("shows share of virtual time, events per second and the time left", () => {
    expect(formatProgress({ simulatedUs: 150_000_000, totalUs: 600_000_000, events: 2_000_000, wallMs: 4000 }, 8)).toBe(
      "[##------]  25.0%  2m30s of 10m00s  500k events/s  ETA 12s",
    );
    expect(formatProgress({ simulatedUs: 0, totalUs: 10_000_000, events: 0, wallMs: 0 }, 4)).toBe("[----]   0.0%  0s of 10s  0 events/s  ETA ?");
  });

  it("draws on a terminal, prints lines only when asked, and nothing when quiet", () => {
    expect(progressMode({ write() {}, isTTY: true }, false, false)).toBe("bar");
    expect(progressMode({ write() {}, isTTY: false }, false, false)).toBe("off");
    expect(progressMode({ write() {}, isTTY: false }, false, true)).toBe("lines");
    expect(progressMode({ write() {}, isTTY: true }, true, true)).toBe("off");
  });

  it("plain lines come at most every 5 s of wall time", () => {
    let text = "";
    const view = progressView({ write: (t) => void (text += t), isTTY: false }, "lines");
    for (const wallMs of [0, 1000, 4999, 5000, 9000]) view.update({ simulatedUs: wallMs, totalUs: 10_000, events: 1, wallMs });
    expect(text.split("\n").filter(Boolean).length).toBe(2);
    expect(text.startsWith("rmqsim: [")).toBe(true);
  });

  it("times read as a clock", () => {
    expect([0, 400_000, 59_000_000, 65_000_000, 3_599_000_000, 7_380_000_000].map(formatClock)).toEqual(["0s", "0s", "59s", "1m05s", "59m59s", "2h03m"]);
  });

  it("counts read as k, M, G", () => {
    expect([formatCount(950), formatCount(12_300), formatCount(4_560_000), formatCount(2e9)]).toEqual(["950", "12.3k", "4.56M", "2.00G"]);
  });
});
