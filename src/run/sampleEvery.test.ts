// The refactor's headline: observers observe. The sampler, the periodic invariant and conservation
// checks and the progress slices run between events, never as events, so how often they look cannot
// change what is simulated — the same scenario gives the same trace hash, event count and message
// counts whether it is sampled every 100 ms or every 10 s, checked every third of a second or only at
// the end (STYLE.md, "Components talk by messages"). And the checks, when they do look, catch a model
// that breaks an invariant mid-run, naming the virtual time, the queue or group, and the seed.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { InvariantError } from "../checks/invariants.ts";
import type { Cluster } from "../model/Cluster.ts";
import type { ScenarioInput } from "../scenario/types.ts";
import { simulate, type RunResult, type SimulateOptions } from "./simulate.ts";

const S = 1_000_000;
const SCENARIOS = join(import.meta.dirname, "../../scenarios");

function shipped(file: string): ScenarioInput {
  return JSON.parse(readFileSync(join(SCENARIOS, file), "utf8")) as ScenarioInput;
}

/** What must not depend on the observers: the trace, the events run, every message and pull count. */
function outcome(r: RunResult) {
  const s = r.summary;
  return { traceHash: r.traceHash, traceRecords: s.traceRecords, events: s.events, messages: s.messages, pulls: s.pulls, flowControl: s.flowControl };
}

const SAMPLE_EVERY = ["100ms", "1s", "10s"] as const;

interface Case {
  file: string;
  /** Shortened run, µs (undefined: the scenario's own duration). */
  durationUs?: number;
  /** Proof that the run reached the phase the scenario is about, so equality is not vacuous. */
  reached: (r: RunResult) => void;
}

const CASES: Case[] = [
  {
    // The full 3 min (it is cheap): retention overtakes the consumer and pulls get OFFSET_ILLEGAL.
    file: "retention-offset-illegal.json",
    reached: (r) => {
      expect(r.summary.pulls.offsetIllegal).toBeGreaterThan(0);
      expect(r.summary.messages.lost).toBeGreaterThan(0);
    },
  },
  {
    // 150 s covers the connectionClosed crash at 60 s, its restart at 90 s and the vanish at 120 s.
    file: "consumer-crash.json",
    durationUs: 150 * S,
    reached: (r) => {
      expect(r.summary.faults.map((f) => [f.kind, f.atMs, f.endMs])).toEqual([["consumerCrash", 60_000, 90_000], ["consumerCrash", 120_000, null]]);
      expect(r.summary.messages.duplicates).toBeGreaterThan(0);
    },
  },
  {
    // The first minute: the 160 000-message backlog drains under count flow control.
    file: "default.json",
    durationUs: 60 * S,
    reached: (r) => {
      expect(r.summary.flowControl.count).toBeGreaterThan(0);
      expect(r.summary.messages.consumed).toBeGreaterThan(160_000);
    },
  },
];

describe.each(CASES)("observers on $file", ({ file, durationUs, reached }) => {
  const scenario = shipped(file);
  const bySample = SAMPLE_EVERY.map((sampleEvery) => simulate({ ...scenario, sampleEvery }, { durationUs }));
  const reference = bySample[1]!; // 1 s

  it("sampleEvery 100 ms, 1 s and 10 s give the same trace hash, events, message and pull counts", () => {
    for (const r of bySample) reached(r);
    // The samplers really did look at different moments: 10× as many samples, then a tenth.
    const samples = bySample.map((r) => r.series.columns.tSec.length);
    expect(samples[0]).toBeGreaterThanOrEqual(samples[1]! * 10 - 1);
    expect(samples[1]).toBeGreaterThanOrEqual(samples[2]! * 10 - 1);
    for (const [i, r] of bySample.entries()) expect(outcome(r), `sampleEvery ${SAMPLE_EVERY[i]}`).toEqual(outcome(reference));
  });

  it("checkEveryUs (invariant and conservation checks every 333 333 µs) leaves the trace hash unchanged", () => {
    // An interval that is no multiple of any sample interval, so checks land between samples too.
    const checked = simulate({ ...scenario, sampleEvery: "1s" }, { durationUs, checkEveryUs: 333_333 });
    expect(outcome(checked)).toEqual(outcome(reference));
  });

  it("progress slices of 50 ms leave the trace hash unchanged", () => {
    let slices = 0;
    const sliced = simulate({ ...scenario, sampleEvery: "1s" }, { durationUs, sliceUs: 50_000, onProgress: () => void slices++ });
    expect(slices).toBeGreaterThanOrEqual((durationUs ?? reference.model.durationUs) / 50_000);
    expect(outcome(sliced)).toEqual(outcome(reference));
  });
});

describe("observers on two topics sharing a broker's commit log", () => {
  // Two topics' messages interleave in the broker's commit log, and their positions decide which are
  // within hotBytes of the tail (getMessage's in-memory vs on-disk batch caps). Producers must store
  // them in birth order across topics, whenever they are asked to catch up; storing topic by topic
  // made extra settle points (samples, checks, slices) change the interleaving. Here F is read every
  // 300 ms near the tail, and the 32 KiB page cache holds about 32 messages of the two topics: with
  // the topic-by-topic order, sampling every 100 ms consumed 922 messages, every 1 s or 10 s only 611.
  it("sampleEvery 100 ms, 1 s and 10 s give the same trace hash", () => {
    const scenario = (sampleEvery: string): ScenarioInput => ({
      name: "two-topics", seed: 1, duration: "20s", sampleEvery,
      brokers: [{ name: "broker-a", hotBytes: "32KiB" }],
      topics: [
        { name: "F", brokers: ["broker-a"], queuesPerBroker: 1, produce: { rate: 50, arrival: "poisson", bodyBytes: "1KiB" } },
        { name: "S", brokers: ["broker-a"], queuesPerBroker: 1, produce: { rate: 50, arrival: "poisson", bodyBytes: "1KiB" } },
      ],
      groups: [{ name: "G", subscribe: { F: "*" }, config: { pullInterval: 300 }, listener: { consumeTime: "1ms" } }],
    } as ScenarioInput);
    const runs = SAMPLE_EVERY.map((sampleEvery) => simulate(scenario(sampleEvery)));
    expect(runs[0]!.summary.messages.consumed).toBeGreaterThan(500);
    for (const r of runs) expect(r.traceHash).toBe(runs[1]!.traceHash);
  });
});

describe("checkEveryUs catches a model that breaks an invariant mid-run", () => {
  const RETENTION = shipped("retention-offset-illegal.json");

  /** Runs `fn` once at `atUs` (an event of the mutant, scheduled before anything else at that time). */
  const at = (cl: Cluster, atUs: number, fn: () => void) => cl.sched.scheduleAt(atUs, cl.sched.defineKind("mutant", fn));

  function thrown(options: SimulateOptions): Error {
    try {
      simulate(RETENTION, options);
    } catch (e) {
      return e as Error;
    }
    throw new Error("simulate did not throw");
  }

  it("a ProcessQueue whose msgCount is one too high at 10.5 s fails the cache check at 11 s, naming the queue and the seed", () => {
    const e = thrown({
      seed: 7,
      checkEveryUs: S,
      configure: (cl) => at(cl, 10.5 * S, () => {
        const [, pq] = cl.consumers[0]!.rebalance.processQueues()[0]!;
        pq.msgCount += 1;
      }),
    });
    expect(e).toBeInstanceOf(InvariantError);
    expect(e.message).toMatch(/^at 11\.000000 s of virtual time \(scenario retention-offset-illegal, seed 7\): /);
    expect(e.message).toMatch(/ProcessQueue of TopicTest@broker-a#0: msgCount (\d+) .* but it holds (\d+) messages/);
    const [, counted, held] = /msgCount (\d+) .* holds (\d+) messages/.exec(e.message)!;
    expect(Number(counted)).toBe(Number(held) + 1);
  });

  it("without checkEveryUs the same corruption is only caught by the end-of-run check", () => {
    const e = thrown({
      seed: 7,
      durationUs: 15 * S,
      configure: (cl) => at(cl, 10.5 * S, () => void (cl.consumers[0]!.rebalance.processQueues()[0]![1].msgCount += 1)),
    });
    expect(e.message).toMatch(/^at 15\.000000 s of virtual time \(scenario retention-offset-illegal, seed 7\): .*ProcessQueue of TopicTest@broker-a#0/);
  });

  it("a consumer that commits 100 offsets past what it consumed fails the committed-offset check, naming the group, the queue and the seed", () => {
    // The mutant: every updateOffset of consumption progress is 100 too high. The first commit reaches
    // the broker piggy-backed on a pull or by the 5 s persist; the next check (every 1 s) sees it.
    const e = thrown({
      checkEveryUs: S,
      configure: (cl) => {
        for (const c of cl.consumers) {
          const original = c.updateOffset.bind(c);
          c.updateOffset = (mq, offset, increaseOnly) => original(mq, offset + 100, increaseOnly);
        }
      },
    });
    expect(e).toBeInstanceOf(InvariantError);
    const m = /^at (\d+)\.000000 s of virtual time \(scenario retention-offset-illegal, seed 1\): group G1 committed offset (\d+) on TopicTest@broker-a#0 but message (\d+) was never consumed/.exec(e.message);
    expect(m, e.message).not.toBeNull();
    const [, atS, committed, message] = m!.map(Number) as [number, number, number, number];
    expect(atS).toBeLessThanOrEqual(6); // caught within a check period of the first persist at most
    expect(message).toBeLessThan(committed);
  });
});
