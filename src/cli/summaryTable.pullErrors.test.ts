// formatRunTable's "pull errors" row: per group, the pull answers other than the four a broker serves
// (groups[].pulls.byCode), only when there are any. Hand-built summaries.
import { describe, expect, it } from "vitest";
import { emptySummary, type Summary } from "../metrics/summary.ts";
import { PULL_CODE_NAMES, type PullCodeName } from "../scenario/pullCodeNames.ts";
import type { RunInfo } from "./computeRun.ts";
import { formatRunTable } from "./summaryTable.ts";

const RUN: RunInfo = { startedAt: "", wallMs: 1000, simulatedMs: 0, events: 0, eventsPerSec: 0, speedup: 0, node: "v20", complete: true, stopReason: "" };
const ZERO = { produced: 0, filtered: 0, consumed: 0, duplicates: 0, dlq: 0, lost: 0, dropped: 0, skippedAtStart: 0, inFlight: 0, cached: 0, retrying: 0, unpulled: 0 };

function byCode(counts: Partial<Record<PullCodeName, number>>): Record<PullCodeName, number> {
  return Object.fromEntries(PULL_CODE_NAMES.map((c) => [c, counts[c] ?? 0])) as Record<PullCodeName, number>;
}

const rows = (table: string) => table.split("\n").filter((l) => l.startsWith("pull errors"));

describe("formatRunTable: pull errors", () => {
  it("lists a group's error answers in code order and leaves out groups with none", () => {
    const s: Summary = emptySummary();
    s.groups = [
      { group: "A", messageModel: "CLUSTERING", consumeMode: "CONCURRENTLY", ...ZERO, instances: null, pulls: { byCode: byCode({ SUCCESS: 900, PULL_NOT_FOUND: 5, TIMEOUT: 3, NO_PERMISSION: 1200 }) } },
      { group: "B", messageModel: "CLUSTERING", consumeMode: "CONCURRENTLY", ...ZERO, instances: null, pulls: { byCode: byCode({ SUCCESS: 10, PULL_OFFSET_MOVED: 1 }) } },
    ] as Summary["groups"];
    expect(rows(formatRunTable(s, RUN, "r"))).toEqual(["pull errors   A: NO_PERMISSION 1,200   TIMEOUT 3"]);
  });

  it("no row without error answers (or without the counts)", () => {
    expect(rows(formatRunTable(emptySummary(), RUN, "r"))).toEqual([]);
  });
});
