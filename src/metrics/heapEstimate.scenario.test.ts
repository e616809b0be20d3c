// The heap estimate in a real run's summary: per consumer at the end and the largest consumer's peak,
// each N cached messages × HEAP_BYTES_PER_MESSAGE + their bodies.
import { describe, expect, it } from "vitest";
import { simulate } from "../run/simulate.ts";
import { HEAP_BYTES_PER_MESSAGE } from "./heapEstimate.ts";

const MIB = 2 ** 20;
const r3 = (v: number) => Math.round(v * 1000) / 1000;

/**
 * Consumers slower than the producer (2 instances × 2 threads × 10 ms = 400 msg/s against 1 000 msg/s),
 * so every ProcessQueue fills to pullThresholdForQueue and stays there; bodies are all 1 KiB.
 */
const FULL_CACHE = {
  name: "heap-estimate",
  duration: "6s",
  sampleEvery: "500ms",
  brokers: [{ name: "broker-a" }],
  topics: [{ name: "T", brokers: ["broker-a"], queuesPerBroker: 4, produce: { rate: 1000, bodyBytes: "1KiB" } }],
  groups: [
    {
      name: "G1",
      instances: 2,
      subscribe: { T: "*" },
      config: { consumeThreadMin: 2, consumeThreadMax: 2, pullThresholdForQueue: 100 },
      listener: { consumeTime: "10ms" },
    },
  ],
};

describe("summary: heapEstimateMiB", () => {
  it("per consumer at the end: its cached messages × 2 360 B + their body bytes", () => {
    const { summary } = simulate(FULL_CACHE, { seed: 1 });
    expect(summary.perConsumer.some((c) => c.cached > 0)).toBe(true);
    for (const c of summary.perConsumer) expect(c.heapEstimateMiB).toBe(r3((c.cached * HEAP_BYTES_PER_MESSAGE + c.cachedBytes) / MIB));
  });

  it("the largest consumer's peak: with 1 KiB bodies, its peak cached messages × (2 360 + 1 024) B", () => {
    const { summary } = simulate(FULL_CACHE, { seed: 1 });
    const c = summary.cache;
    // Equal bodies: bytes = count × 1 024, so the heap peaks where the count does.
    expect(c.bytesPerConsumerMax).toBe(c.countPerConsumerMax * 1024);
    expect(c.heapEstimateMiB).toBe(r3((c.countPerConsumerMax * (HEAP_BYTES_PER_MESSAGE + 1024)) / MIB));
    // Each instance holds 2 of the 4 queues, each filled to the threshold of 100 plus at most one pull of 32.
    expect(c.countPerConsumerMax).toBeGreaterThanOrEqual(200);
    expect(c.countPerConsumerMax).toBeLessThanOrEqual(2 * (100 + 32));
  });
});
