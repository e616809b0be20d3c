// The summary tables of report.html (issue 12): a broadcasting group's instances with what each consumed
// and dropped, and the orderly queues with their suspends, longest head block and final lock state.
import { describe, expect, it } from "vitest";
import type { GroupAccount, InstanceAccount } from "../metrics/accounting.ts";
import type { QueueRow, Summary } from "../metrics/summary.ts";
import type { RunResult } from "../run/simulate.ts";
import { formatDisplay, ORDERLY_QUEUES_MAX, renderSummaryTables } from "./htmlSummary.ts";
import { simulateBacklog } from "./testScenario.ts";

const base = simulateBacklog();

const ZERO = { produced: 0, filtered: 0, consumed: 0, duplicates: 0, dlq: 0, lost: 0, dropped: 0, skippedAtStart: 0, inFlight: 0, cached: 0, retrying: 0, unpulled: 0 };

function inst(clientId: string, started: boolean, consumed: number, dropped: number): InstanceAccount {
  return { ...ZERO, clientId, started, produced: consumed + dropped, consumed, dropped, lost: dropped };
}

function group(name: string, instances: InstanceAccount[] | null): GroupAccount {
  return { ...ZERO, group: name, messageModel: instances === null ? "CLUSTERING" : "BROADCASTING", consumeMode: "CONCURRENTLY", instances };
}

function orderlyRow(queueId: number, suspends: number, longestHeadBlockMs: number): QueueRow {
  return {
    group: "O", topic: "T", brokerName: "b", queueId, owner: "o", minOffset: 0, maxOffset: 1, committedOffset: 1, nextOffset: 1, cached: 0,
    orphanSeconds: 0, ownerHistory: [], orderly: { suspends, longestHeadBlockMs, lockState: "held", locks: [] },
  };
}

function withSummary(change: Partial<Summary>): RunResult {
  return { ...base, summary: { ...base.summary, ...change } };
}

describe("renderSummaryTables: broadcasting instances and orderly queues", () => {
  it("lists every broadcasting instance with what it consumed and dropped, marking a slot never started", () => {
    const html = renderSummaryTables(withSummary({ groups: [group("C", null), group("B", [inst("x", true, 95, 5), inst("y", false, 0, 0)])] }));
    expect(html).toContain("<caption>Broadcasting instances (each consumes every message)</caption>");
    expect(html).toContain('<tr><td>B</td><td>x</td><td class="num">95</td><td class="num">5</td>');
    expect(html).toContain("<tr><td>B</td><td>y (never started)</td>");
    expect(html).not.toContain("<td>C</td>");
  });

  it("lists orderly queues with suspends, longest head block and the final lock state, at most ORDERLY_QUEUES_MAX of them", () => {
    const html = renderSummaryTables(withSummary({ perQueue: [orderlyRow(0, 3, 2500), orderlyRow(1, 0, 0)] }));
    expect(html).toContain("<caption>Orderly queues</caption>");
    expect(html).toContain('<tr><td>O</td><td>T@b#0</td><td class="num">3</td><td class="num">2,500</td><td>held</td></tr>');
    const many = renderSummaryTables(withSummary({ perQueue: Array.from({ length: ORDERLY_QUEUES_MAX + 5 }, (_, i) => orderlyRow(i, 0, 0)) }));
    expect(many).toContain(`<caption>Orderly queues — first ${ORDERLY_QUEUES_MAX} of ${ORDERLY_QUEUES_MAX + 5}</caption>`);
    expect(many).not.toContain(`T@b#${ORDERLY_QUEUES_MAX}<`);
  });

  it("a run without either (all clustering, concurrently) has neither table, and its messages table counts dropped", () => {
    const html = renderSummaryTables(base);
    expect(html).not.toContain("Broadcasting instances");
    expect(html).not.toContain("Orderly queues");
    expect(html).toContain('<tr><td>of which dropped</td><td class="num">0</td></tr>');
  });
});

describe("formatDisplay", () => {
  it("groups the integer part by thousands with commas, keeps up to 3 decimals, and leaves small numbers alone", () => {
    expect(formatDisplay(160_000)).toBe("160,000");
    expect(formatDisplay(-1_234_567.5)).toBe("-1,234,567.5");
    expect(formatDisplay(999)).toBe("999");
    expect(formatDisplay(1000.12345)).toBe("1,000.123");
    expect(formatDisplay(0)).toBe("0");
  });
});
