// A 40-second run with a backlog and count flow control after 20 s, shared by the report tests.
import { simulate, type RunResult } from "../run/simulate.ts";

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
