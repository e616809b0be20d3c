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

describe("formatRunTable: memory and capacity rows", () => {
  function loaded(): Summary {
    const s: Summary = emptySummary();
    // 100 s; two instances of 20 threads; 80 000 listener calls of 5 ms mean, one message each.
    s.simulatedMs = 100_000;
    s.perConsumer = ["c1", "c2"].map((clientId) => ({
      clientId, group: "G1", queues: 4, cached: 0, cachedBytes: 0, heapEstimateMiB: 0, queueFlowControlTimes: 0, queueMaxSpanFlowControlTimes: 0, consumeThreads: 20, hungWorkers: 0, rebalances: 1,
    }));
    s.latency.consume = { count: 80_000, meanMs: 5, p50Ms: 5, p90Ms: 5, p99Ms: 5, maxMs: 5 };
    s.throughput.consumedPerSec.mean = 800;
    s.messages.produced = 120_000;
    s.cache.bytesPerConsumerMax = 3 * 2 ** 20;
    s.cache.heapEstimateMiB = 10.5;
    return s;
  }

  it("capacity = 40 threads / 5 ms = 8,000 msg/s against 1,200 offered (15 %); the pool is busy 80 000 × 5 ms / 100 s / 40 = 10 %", () => {
    expect(line(formatRunTable(loaded(), RUN, "r"), "capacity")).toBe(
      "capacity".padEnd(14) + "40 threads / 5.00 ms mean consume time = 8,000 msg/s   offered 1,200 msg/s (15 % of capacity)   pool 10 % busy",
    );
  });

  it("batches: 8 messages per listener call multiply the capacity", () => {
    const s = loaded();
    s.latency.consume.count = 10_000; // 80 000 messages in 10 000 calls
    expect(line(formatRunTable(s, RUN, "r"), "capacity")).toMatch(/^capacity {6}40 threads × 8\.0 messages per call \/ 5\.00 ms mean consume time = 64,000 msg\/s {3}offered 1,200 msg\/s \(2 % of capacity\) {3}pool 1 % busy$/);
  });

  it("no capacity line when nothing was consumed", () => {
    expect(line(formatRunTable(emptySummary(), RUN, "r"), "capacity")).toBeUndefined();
  });

  it("memory: the peak cached bodies per consumer and the heap estimate next to them", () => {
    expect(line(formatRunTable(loaded(), RUN, "r"), "memory")).toBe(
      "memory".padEnd(14) + "cache per consumer (peak): bodies 3.00 MiB, heap estimate 10.50 MiB (bodies + 2,360 B of objects per cached message)",
    );
  });
});
