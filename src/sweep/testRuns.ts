// Synthetic sweep runs for the assemble and shard tests: metrics drawn from a seeded stream, shaped
// like a threshold sweep (throughput rises and then flattens with the threshold, memory grows with it).
import { RandomStreams, type Rng } from "../sim/streams.ts";
import type { AssembleInput, AssembleRun } from "./assemble.ts";
import { expandGrid } from "./grid.ts";
import { SWEEP_METRIC_KEYS } from "./metrics.ts";
import { DEFAULT_REQUIREMENT } from "./recommend.ts";
import type { SweepParam } from "./types.ts";

export const THRESHOLD = "groups.0.config.pullThresholdForQueue";

export const TEST_PARAMS: SweepParam[] = [
  { path: THRESHOLD, spec: "100,200,500,1000", values: [100, 200, 500, 1000] },
  { path: "groups.0.config.consumeThreadMax", spec: "10..20:10", values: [10, 20] },
];

/** Every (point, seed) run of TEST_PARAMS × `seeds`, in (point, seed) order. */
export function syntheticRuns(seeds: number, rootSeed = 1): AssembleRun[] {
  const rng = new RandomStreams(rootSeed).get("syntheticRuns");
  const runs: AssembleRun[] = [];
  expandGrid(TEST_PARAMS).forEach((params, point) => {
    const threshold = params[THRESHOLD] as number;
    const threads = params["groups.0.config.consumeThreadMax"] as number;
    for (let seedIndex = 0; seedIndex < seeds; seedIndex++) {
      const metrics: Record<string, number> = {};
      for (const k of SWEEP_METRIC_KEYS) metrics[k] = Math.round(rng() * 1000) / 10;
      metrics["throughput.consumedPerSec.mean"] = 10_000 * Math.min(1, threshold / 400) * (threads / 20) + noise(rng, 30);
      metrics.memoryPerConsumerMiB = threshold / 50 + noise(rng, 0.5);
      // One missing figure (nothing consumed after warm-up), to exercise NaN → null → NaN in merges.
      if (point === 3 && seedIndex === 0) metrics["latency.endToEnd.p50Ms"] = NaN;
      runs.push({ point, seedIndex, metrics, complete: true });
    }
  });
  return runs;
}

function noise(rng: Rng, amplitude: number): number {
  return Math.round((rng() - 0.5) * 2 * amplitude * 1000) / 1000;
}

export function baseInput(runs: AssembleRun[], seeds: number): AssembleInput {
  return {
    scenario: "synthetic",
    baseSeed: 41,
    seeds,
    warmupMs: 2000,
    params: TEST_PARAMS,
    requires: ["messages.lost <= 100", DEFAULT_REQUIREMENT],
    objective: { metric: THRESHOLD, direction: "minimize" },
    runs,
    shard: null,
    complete: true,
  };
}

/** Fisher–Yates with a seeded stream: a reproducible arbitrary order. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  const rng = new RandomStreams(seed).get("shuffle");
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
