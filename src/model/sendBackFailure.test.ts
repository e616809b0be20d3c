// The sendBackFailure fault and the client's fallback (broker spec §8.1): a CONSUMER_SEND_MSG_BACK that
// fails — answered SYSTEM_ERROR, or never answered (5 s time-out) — is followed by the client sending
// the retry itself through its internal producer to %RETRY%<group> (RECONSUME_TIME rt + 1, delay level
// 3 + rt); only if that fails too is the message consumed again locally 5 s later, staying cached and
// pinning the committed offset.
import { describe, expect, it } from "vitest";
import type { ConsumeMessageConcurrentlyService } from "../client/ConsumeMessageConcurrentlyService.ts";
import type { Cluster } from "./Cluster.ts";
import { simulate } from "../run/simulate.ts";
import type { ScenarioInput } from "../scenario/types.ts";

const S = 1_000_000;

/** broker-a (and broker-b with `two`), 4 queues each, 100 msg/s evenly spaced; one message in ten fails. */
function scenario(faults: unknown[], o: { failureProbability?: number; duration?: string; two?: boolean } = {}): ScenarioInput {
  const brokers = o.two ? ["broker-a", "broker-b"] : ["broker-a"];
  return {
    name: "send-back-failure", seed: 2, duration: o.duration ?? "60s", network: { latency: "1ms" },
    brokers: brokers.map((name) => ({ name })),
    topics: [{ name: "T", brokers, queuesPerBroker: 4, produce: { rate: 100, arrival: "uniform" } }],
    groups: [{ name: "G", instances: 1, subscribe: { T: "*" }, listener: { consumeTime: "1ms", failureProbability: o.failureProbability ?? 0.1 } }],
    faults,
  } as ScenarioInput;
}

function run(sc: ScenarioInput) {
  let cl!: Cluster;
  const r = simulate(sc, { configure: (c) => void (cl = c) });
  const svc = cl.consumers[0]!.consumeService as ConsumeMessageConcurrentlyService;
  return { r, cl, svc };
}

describe("sendBackFailure (§8.1)", () => {
  it("two brokers, broker-a failing: each failed send-back falls back to the internal producer, whose first attempt (broker-a) fails too and whose second lands on broker-b", () => {
    const { r, cl, svc } = run(scenario([{ kind: "sendBackFailure", at: "0s", target: "broker-a" }], { two: true }));
    const failedA = cl.brokers[0]!.sendBack.failed;
    // Send-backs of broker-a's messages fail (≈ 10 % of 3 000 plus their own retries), and so does each
    // fallback's first attempt there: failedA = 2 × the send-backs that fell back from broker-a.
    expect(svc.sendBackFallbacks).toBeGreaterThan(250);
    expect(failedA).toBe(2 * svc.sendBackFallbacks);
    expect(svc.sendBackFallbackFailures).toBe(0);
    expect(cl.brokers[1]!.sendBack.failed).toBe(0);
    expect(r.summary.messages.lost).toBe(0);
    expect(r.summary.messages.dlq).toBe(0);
  });

  it("one broker, mode error: the fallback fails too — consumed again locally after 5 s, cached, the committed offset pinned", () => {
    const { r, cl, svc } = run(scenario([{ kind: "sendBackFailure", at: "0s", target: "broker-a" }], { duration: "30s" }));
    // A single broker: all three attempts of the internal producer go nowhere else (one broker in the route).
    expect(svc.sendBackFallbackFailures).toBe(svc.sendBackFallbacks);
    expect(svc.sendBackFallbacks).toBeGreaterThan(200);
    expect(cl.brokers[0]!.sendBack.failed).toBe(2 * svc.sendBackFallbacks);
    expect(r.summary.messages.sentBack).toBe(0);
    // The failed messages stay in their ProcessQueue for the 5 s local retry: each queue's committed
    // offset waits below its oldest failure, so the committed lag is ≈ 5 s of traffic (100 msg/s), where
    // a run without the fault commits within a few messages of the end.
    expect(r.summary.lag.committed.final).toBeGreaterThan(300);
    expect(run(scenario([], { duration: "30s" })).r.summary.lag.committed.final).toBeLessThan(50);
    expect(r.summary.messages.lost).toBe(0);
  });

  it("mode timeout: the send-back holds its consume thread for the 5 s RPC time-out; a fallback that times out uses up its 3 s budget (no second attempt)", () => {
    const { cl, svc } = run(scenario([{ kind: "sendBackFailure", at: "0s", target: "broker-a", mode: "timeout" }], { duration: "30s" }));
    // Every send-back and every fallback's one attempt are dropped by broker-a: 8 s per failing message.
    const inFlight = cl.brokers[0]!.sendBack.failed - 2 * svc.sendBackFallbacks;
    expect(inFlight).toBeGreaterThanOrEqual(-20);
    expect(inFlight).toBeLessThanOrEqual(20);
    expect(svc.sendBackFallbackFailures).toBeLessThanOrEqual(svc.sendBackFallbacks);
    // ≈ 10 failing messages a second, each blocking a thread for 8 s: more than the 20 threads can carry.
    expect(svc.busyWorkers).toBe(20);
  });

  it("without the fault nothing falls back", () => {
    const { svc } = run(scenario([]));
    expect(svc.sendBackFallbacks).toBe(0);
  });
});
