// A 40-second run with a backlog and count flow control after 20 s, shared by the report tests; and the
// same run with two broker nodes grafted on, for the parts a run with replicas adds.
import type { BrokerNodeRow } from "../metrics/summary.ts";
import { simulate, type RunResult } from "../run/simulate.ts";
import { explainAlongside, type ExplainedRun } from "../explain/explain.ts";

export const BACKLOG_SCENARIO = {
  name: "report-backlog",
  seed: 7,
  duration: "40s",
  brokers: [{ name: "broker-a" }],
  topics: [
    {
      name: "TopicTest",
      brokers: ["broker-a"],
      queuesPerBroker: 4,
      produce: { rate: 1000, rateChanges: [{ at: "20s", rate: 6000 }] },
    },
  ],
  groups: [
    {
      name: "G1",
      instances: 2,
      subscribe: { TopicTest: "*" },
      config: { consumeThreadMin: 4, consumeThreadMax: 4, pullThresholdForQueue: 200 },
    },
  ],
};

/** The backlog run plus one fault marker at 30 s, so both marker styles are drawn. */
export function simulateBacklog(): RunResult {
  const result = simulate(BACKLOG_SCENARIO);
  return {
    ...result,
    markers: [...result.markers, { tUs: 30_000_000, kind: "fault", label: "broker-a </script> partitioned" }],
  };
}

function node(name: string, roleTimeline: BrokerNodeRow["roleTimeline"], servedPulls: number, retryReplays: number): BrokerNodeRow {
  return { name, broker: "broker-a", roleTimeline, servedPulls, offsetsHeld: 5, syncs: 3, retryReplays };
}

/**
 * The backlog run with broker-a's nodes grafted on: broker-a down from 20 s to 30 s, broker-a-s1 a
 * slave throughout; each serves 10 pulls a second while consumers read from it (the slave while the
 * master is down). Every group had 5 duplicates: 4 rollbacks and 1 rebalance.
 */
export function simulateBacklogWithNodes(base: RunResult = simulateBacklog()): RunResult {
  const replays = { rollback: 4, reset: 0, rebalance: 1, retryReplay: 0 };
  const t = base.series.columns.tSec;
  return {
    ...base,
    summary: {
      ...base.summary,
      brokerNodes: [
        node("broker-a", [{ atMs: 0, state: "master" }, { atMs: 20_000, state: "down" }, { atMs: 30_000, state: "master" }], 300, 0),
        node("broker-a-s1", [{ atMs: 0, state: "slave" }], 100, 7),
      ],
      replays,
      groups: base.summary.groups.map((g) => ({ ...g, duplicates: 5, replays })),
    },
    series: {
      ...base.series,
      perNode: [
        { name: "broker-a", servedPerSec: t.map((s) => (s > 20 && s <= 30 ? 0 : 10)) },
        { name: "broker-a-s1", servedPerSec: t.map((s) => (s > 20 && s <= 30 ? 10 : 0)) },
      ],
    },
  };
}

/** A run explained alongside, as `rmqsim run` explains it (computeRun): the result and the account. */
export function simulateExplained(scenario: unknown, durationUs?: number): { result: RunResult; why: ExplainedRun } {
  const along = explainAlongside();
  const result = simulate(scenario, { captureTrace: (cl) => along.captureTrace(cl), ...(durationUs !== undefined ? { durationUs } : {}) });
  return { result, why: along.finish(result) };
}
