import { describe, expect, it } from "vitest";
import { fakeEnv, run, TINY_SCENARIO, writeScenario } from "./testEnv.ts";

/** A small count-flow-control case: 4 queues, a consumer slower than its producer, 8 s. */
const SLOW = {
  ...TINY_SCENARIO,
  name: "slow",
  duration: "8s",
  topics: [{ name: "TopicTest", brokers: ["broker-a"], queuesPerBroker: 4, produce: { rate: 2000 } }],
  groups: [{ name: "G1", instances: 1, subscribe: { TopicTest: "*" }, config: { consumeThreadMin: 8, consumeThreadMax: 8 }, listener: { consumeTime: "10ms" } }],
};

async function explainCli(...args: string[]) {
  const env = fakeEnv();
  writeScenario(env.cwd, "s.json", SLOW);
  const code = await run(env, "explain", "s.json", ...args);
  return { code, out: env.out(), err: env.err() };
}

describe("rmqsim explain", () => {
  it("prints each queue's intervals in time order with the reason, the sentence and the settings", async () => {
    const r = await explainCli("--top", "2");
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^slow \(seed \d+, profile 4\.9, 8\.000s simulated\): 2 of 5 queue\(s\) explained\n/); // 4 queues and %RETRY%G1
    expect(r.out).toContain("[flowControl.count, slow]");
    expect(r.out).toContain("> pullThresholdForQueue 1 000");
    expect(r.out).toContain("· raise consumeThreadMin");
  });

  it("--json prints the same explanation as an object; --queue keeps that queue only", async () => {
    const r = await explainCli("--json", "--queue", "TopicTest@broker-a#3");
    expect(r.code).toBe(0);
    const e = JSON.parse(r.out);
    expect(e.queues.map((q: { queue: string }) => q.queue)).toEqual(["TopicTest@broker-a#3"]);
    // After the saturated pool's interval (8 threads busy, messages waiting), count flow control to the end.
    expect(e.queues[0].intervals.map((i: { reason: string }) => i.reason)).toEqual(["poolSaturated", "flowControl.count"]);
    expect(e.queues[0].intervals[1]).toMatchObject({ reason: "flowControl.count", ongoing: true, endUs: 8_000_000 });
    expect(typeof e.traceHash).toBe("string");
  });

  it("--at and --window keep the intervals that overlap [at, at + window]", async () => {
    const r = await explainCli("--json", "--at", "0s", "--window", "1s");
    const e = JSON.parse(r.out);
    // The caches fill after about 3 s: in the first second only the saturated pool shows.
    expect(e.queues.every((q: { intervals: { reason: string }[] }) => q.intervals.every((i) => i.reason === "poolSaturated"))).toBe(true);
  });

  it.each([
    [["--queue", "TopicTest#0"], /^rmqsim: --queue: .*Topic@broker#queueId/],
    [["--queue", "TopicTest@broker-z#0"], /^rmqsim: --queue: no queue "TopicTest@broker-z#0"/],
    [["--group", "G9"], /^rmqsim: --group: no group "G9" in the scenario; it has G1/],
    [["--top", "0"], /^rmqsim: --top: must be a whole number from 1 to 1000/],
    [["--at", "soon"], /^rmqsim: --at: /],
    [["--window", "0s"], /^rmqsim: --window: must be greater than 0/],
    [["--seed", "-1"], /^rmqsim: --seed: /],
    [["--at", "1m"], /^rmqsim: --at: is after the end of the run/],
  ])("bad input %j exits 2 with one line naming the option", async (args, line) => {
    const r = await explainCli(...args);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(line);
    expect(r.err).toMatch(/^rmqsim: [^\n]+\n$/);
    expect(r.out).toBe("");
  });

  it("a missing scenario file exits 2 naming the file", async () => {
    const env = fakeEnv();
    const code = await run(env, "explain", "nope.json");
    expect(code).toBe(2);
    expect(env.err()).toMatch(/^rmqsim: nope\.json: /);
  });
});
