// suspend() / resume() (broker spec §8.3, consumer spec §10.1): a paused consumer does not rebalance — it
// keeps the queues it had, even when a newcomer's allocation gives some of them away — and resume()
// rebalances at once. Pulls of a paused consumer are put off every second (PullMessageService).
import { describe, expect, it } from "vitest";
import type { Cluster } from "./Cluster.ts";
import { simulate } from "../run/simulate.ts";
import type { Profile, ScenarioInput } from "../scenario/types.ts";

const S = 1_000_000;

/** 8 queues, G1/0 and G1/1 from the start; G1/0 paused 10 s → 70 s; G1/2 joins at 20 s. */
function scenario(profile: Profile): ScenarioInput {
  return {
    name: "pause", seed: 1, duration: "90s", profile,
    brokers: [{ name: "broker-a" }],
    topics: [{ name: "T", brokers: ["broker-a"], queuesPerBroker: 8, produce: { rate: 400 } }],
    groups: [{ name: "G1", instances: 2, subscribe: { T: "*" }, listener: { consumeTime: "1ms" } }],
    faults: [
      { kind: "pause", at: "10s", target: "G1/0", for: "60s" },
      { kind: "consumerStart", at: "20s", target: "G1/2" },
    ],
  } as ScenarioInput;
}

/** Each instance's topic-T queue count at every whole second. */
function counts(profile: Profile): Map<number, number[]> {
  let cl!: Cluster;
  const out = new Map<number, number[]>();
  simulate(scenario(profile), {
    sliceUs: S,
    configure: (c) => void (cl = c),
    onProgress: (t) => {
      out.set(t / S, cl.consumers.map((c) => c.rebalance.processQueues().filter(([mq]) => cl.routes.topicOf(mq) === 0).length));
    },
  });
  return out;
}

describe("a paused consumer keeps its queues until resume (§8.3)", () => {
  for (const profile of ["4.9", "5.x"] as const) {
    it(`${profile}: 4 queues from 10 s to 70 s although AVG over three gives it 3; back to 3 at resume`, () => {
      const c = counts(profile);
      expect(c.get(15)).toEqual([4, 4, 0]);
      // G1/2 joined at 20 s; G1/1 and G1/2 rebalanced (3 + 2 for them), G1/0 did not.
      for (const t of [25, 40, 69]) expect(c.get(t)![0]).toBe(4);
      expect(c.get(40)!.slice(1)).toEqual([3, 2]);
      // resume() at 70 s rebalances at once: AVG gives the first client id 3.
      expect(c.get(71)).toEqual([3, 3, 2]);
    });
  }
});
