// formatRunTable (issue 12 rows): a line per broadcasting group with each instance's consumed and dropped,
// one for orderly groups with suspends, the longest head block and the queues' final lock states, and
// dropped among the messages once there are any. Hand-built summaries; only these rows are asserted.
import { describe, expect, it } from "vitest";
import type { InstanceAccount } from "../metrics/accounting.ts";
import { emptySummary, type QueueRow, type Summary } from "../metrics/summary.ts";
import type { RunInfo } from "./computeRun.ts";
import { formatRunTable } from "./summaryTable.ts";

const RUN: RunInfo = { startedAt: "", wallMs: 1000, simulatedMs: 0, events: 0, eventsPerSec: 0, speedup: 0, node: "v20", complete: true, stopReason: "" };
const ZERO = { produced: 0, filtered: 0, consumed: 0, duplicates: 0, dlq: 0, lost: 0, dropped: 0, skippedAtStart: 0, inFlight: 0, cached: 0, retrying: 0, unpulled: 0 };

function inst(clientId: string, consumed: number, dropped: number): InstanceAccount {
  return { ...ZERO, clientId, started: true, consumed, dropped, lost: dropped };
}

function orderlyRow(topic: string, lockState: "held" | "not locked"): QueueRow {
  return {
    group: "O", topic, brokerName: "b", queueId: 0, owner: "o", minOffset: 0, maxOffset: 1, committedOffset: 1, nextOffset: 1, cached: 0,
    orphanSeconds: 0, ownerHistory: [], orderly: { suspends: 1, longestHeadBlockMs: 1, lockState, locks: [] },
  };
}

const line = (table: string, label: string) => table.split("\n").find((l) => l.startsWith(label));

describe("formatRunTable: broadcasting and orderly rows", () => {
  it("a broadcasting group gets a line of its instances' consumed and dropped, eight at most", () => {
    const s: Summary = emptySummary();
    s.messages.dropped = 12;
    s.messages.lost = 12;
    const instances = Array.from({ length: 10 }, (_, i) => inst(`c${i}`, 1000 - i, i));
    s.groups = [{ ...ZERO, group: "B", messageModel: "BROADCASTING", consumeMode: "CONCURRENTLY", instances }];
    const table = formatRunTable(s, RUN, "r");
    expect(line(table, "broadcast B")).toBe("broadcast B   c0 consumed 1,000 dropped 0; c1 consumed 999 dropped 1; c2 consumed 998 dropped 2; "
      + "c3 consumed 997 dropped 3; c4 consumed 996 dropped 4; c5 consumed 995 dropped 5; c6 consumed 994 dropped 6; c7 consumed 993 dropped 7; … 2 more");
    expect(line(table, "messages")).toContain("lost 12   of which dropped 12");
  });

  it("orderly groups get one line: suspends, the longest head block, and how many ordinary queues end in each lock state", () => {
    const s: Summary = emptySummary();
    s.orderly = { suspends: 7, longestHeadBlockMs: 2500 };
    s.perQueue = [orderlyRow("T", "held"), orderlyRow("T", "not locked"), orderlyRow("T", "held"), orderlyRow("%RETRY%O", "not locked")];
    expect(line(formatRunTable(s, RUN, "r"), "orderly")).toBe("orderly       suspends 7   longest head block 2,500 ms   queues' lock at the end: held 2, not locked 1");
  });

  it("with replicas: one line of nodes (roles over time, pulls served, retry replays when any) and one of the duplicates' causes", () => {
    const s: Summary = emptySummary();
    s.messages.duplicates = 155_319;
    s.replays = { rollback: 155_000, reset: 0, rebalance: 319, retryReplay: 0 };
    s.brokerNodes = [
      { name: "broker-a", broker: "broker-a", roleTimeline: [{ atMs: 0, state: "master" }, { atMs: 60_000, state: "down" }, { atMs: 170_000, state: "master" }],
        servedPulls: 9_499, offsetsHeld: 5, syncs: 0, retryReplays: 0 },
      { name: "broker-a-s1", broker: "broker-a", roleTimeline: [{ atMs: 0, state: "slave" }, { atMs: 100_010.5, state: "master" }], servedPulls: 3_970, offsetsHeld: 5, syncs: 9, retryReplays: 817 },
    ];
    const table = formatRunTable(s, RUN, "r");
    // Labels are padded to the widest, "flow control", plus two spaces.
    expect(line(table, "nodes")).toBe("nodes".padEnd(14) + "broker-a master→down@60s→master@170s served 9,499; broker-a-s1 slave→master@100.011s served 3,970 retry replays 817");
    expect(line(table, "replays")).toBe("replays".padEnd(14) + "rollback 155,000   reset 0   rebalance 319   retry replay 0");
    // No duplicates: no causes line.
    s.messages.duplicates = 0;
    expect(line(formatRunTable(s, RUN, "r"), "replays")).toBeUndefined();
  });

  it("neither line, and no dropped count, for a run without broadcasting or orderly groups", () => {
    const table = formatRunTable(emptySummary(), RUN, "r");
    expect(table).not.toMatch(/^broadcast|^orderly|^nodes|^replays|dropped/m);
  });
});
