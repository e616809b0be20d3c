// Random valid scenarios for the fuzz corpus (issue 15): small clusters in every shape the model knows —
// 1–3 brokers with or without replicas (classic or DLedger), 1–2 topics, 1–8 queues per broker, 1–3
// groups of 1–6 instances, CLUSTERING or BROADCASTING, concurrent or orderly listeners, config values
// drawn inside RocketMQ's checkConfig ranges — running 5–30 s. Paired with randomFaults
// (faultSchedule.ts) they are the "random scenario × random fault schedule" half of the corpus: every
// one must validate, simulate, and pass conservation and the invariants.
//
// Determinism: each part of the scenario draws from its own stream of the seed ("scenario/topic/1"…), so
// a new option drawn for one part never changes what the others drew.
import { RandomStreams, type Rng } from "../sim/streams.ts";
import { randomFaults } from "./faultSchedule.ts";

/** What randomScenario may build; the defaults are the corpus's (small enough for hundreds of runs). */
export interface RandomScenarioOptions {
  /** Shortest and longest run, seconds (whole seconds, drawn uniformly). */
  durationSMin?: number;
  durationSMax?: number;
  /** Highest produce rate of a topic, msg/s (drawn log-uniformly from 5). */
  rateMax?: number;
}

const BROKER_NAMES = ["broker-a", "broker-b", "broker-c"];
const PROFILES = ["4.7", "4.9", "5.x"] as const;
const CONSUME_FROM = ["CONSUME_FROM_LAST_OFFSET", "CONSUME_FROM_FIRST_OFFSET", "CONSUME_FROM_TIMESTAMP"];
const ALLOCATE = ["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH"];
const TAGS = ["TagA", "TagB", "TagC"];

/**
 * Consumer settings a random group may change, each with the range drawn from: inside
 * CONSUMER_CONFIG_RANGES (checkConfig), narrowed to values that make a 30 s run say something (a
 * 1-hour pullInterval would only make it idle).
 */
const CONFIG_DRAWS: Readonly<Record<string, readonly [number, number]>> = {
  consumeThreadMin: [1, 64],
  consumeConcurrentlyMaxSpan: [1, 4000],
  pullThresholdForQueue: [1, 2000],
  pullThresholdSizeForQueue: [1, 200],
  pullInterval: [0, 200],
  consumeMessageBatchMaxSize: [1, 64],
  pullBatchSize: [1, 128],
  maxReconsumeTimes: [-1, 20],
  suspendCurrentQueueTimeMillis: [10, 3000],
  consumeTimeout: [1, 15],
  awaitTerminationMillisWhenShutdown: [0, 2000],
  pollNameServerInterval: [1000, 30_000],
  heartbeatBrokerInterval: [1000, 30_000],
  persistConsumerOffsetInterval: [500, 10_000],
  pullTimeDelayMillsWhenException: [100, 3000],
  mqClientApiTimeout: [500, 5000],
};

class Draw {
  constructor(private readonly rng: Rng) {}
  /** True with probability p. */
  chance(p: number): boolean {
    return this.rng() < p;
  }
  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.rng() * (hi - lo + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.rng() * items.length)]!;
  }
  /** A value spread evenly over orders of magnitude in [lo, hi], rounded to 3 significant digits. */
  logUniform(lo: number, hi: number): number {
    return Number((lo * (hi / lo) ** this.rng()).toPrecision(3));
  }
  /** A non-empty random subset, in the list's order. */
  subset<T>(items: readonly T[]): T[] {
    const out = items.filter(() => this.chance(0.5));
    return out.length > 0 ? out : [this.pick(items)];
  }
}

/** A duration distribution around `medianMs` (bounded where a tail is unbounded). */
function durationDist(d: Draw, medianMs: number): unknown {
  const m = Math.max(0.05, medianMs);
  switch (d.int(0, 5)) {
    case 0: return `${m}ms`;
    case 1: return { dist: "uniform", min: "0ms", max: `${Math.ceil(2 * m)}ms` };
    case 2: return { dist: "exponential", mean: `${m}ms`, max: `${Math.ceil(50 * m)}ms` };
    case 3: return { dist: "normal", mean: `${m}ms`, sd: `${m / 2}ms` };
    case 4: return { dist: "lognormal", median: `${m}ms`, p99: `${5 * m}ms` };
    default: return { dist: "empirical", values: [[`${m}ms`, d.int(1, 9)], [`${Math.ceil(4 * m)}ms`, 1]] };
  }
}

function bodyBytes(d: Draw): unknown {
  switch (d.int(0, 3)) {
    case 0: return d.pick(["128B", "1KiB", "4KiB", "64KiB"]);
    case 1: return { dist: "uniform", min: 16, max: d.int(100, 16_384) };
    case 2: return { dist: "lognormal", median: "1KiB", p99: "32KiB", max: "1MiB" };
    default: return { dist: "pareto", scale: "256B", shape: 1.5, max: "256KiB" };
  }
}

function randomBroker(d: Draw, name: string, profile: string): Record<string, unknown> {
  const b: Record<string, unknown> = { name };
  if (d.chance(0.35)) {
    const dledger = d.chance(0.3);
    b.replicas = dledger ? [{ role: "FOLLOWER" }, { role: "FOLLOWER" }] : Array.from({ length: d.int(1, 2) }, () => ({ role: "SLAVE" }));
    const replication: Record<string, unknown> = { mode: dledger ? "dledger" : "classic", lag: durationDist(d, d.pick([0.5, 2, 20])) };
    if (!dledger && profile === "5.x" && d.chance(0.3)) replication.actingMaster = true;
    b.replication = replication;
    if (!dledger && d.chance(0.5)) b.brokerRole = d.pick(["ASYNC_MASTER", "SYNC_MASTER"]);
  }
  const config: Record<string, unknown> = {};
  if (d.chance(0.2)) config.longPollingEnable = false;
  if (d.chance(0.3)) config.slaveReadEnable = true;
  if (d.chance(0.2)) config.maxTransferCountOnMessageInMemory = d.int(1, 64);
  if (d.chance(0.2)) config.retryQueueNums = d.int(0, 2);
  if (d.chance(0.2)) config.messageDelayLevel = "1s 2s 3s 5s";
  if (Object.keys(config).length > 0) b.config = config;
  if (d.chance(0.2)) b.maxMessageSize = d.pick(["1MiB", "4MiB"]);
  return b;
}

function randomTopic(d: Draw, name: string, brokers: string[], rateMax: number, durationS: number): Record<string, unknown> {
  const onBrokers = d.subset(brokers);
  const queuesPerBroker = d.int(1, 8);
  const produce: Record<string, unknown> = { rate: d.chance(0.1) ? 0 : d.logUniform(5, rateMax), arrival: d.pick(["poisson", "uniform"]), bodyBytes: bodyBytes(d) };
  if (d.chance(0.4)) produce.tags = Object.fromEntries(d.subset(TAGS).map((t) => [t, d.int(1, 5)]));
  const select = d.int(0, 2);
  if (select === 1) produce.queueSelect = "random";
  if (select === 2) {
    // Some queues may get weight 0 (never written), but not all: the first keeps at least 1.
    const weights = Array.from({ length: onBrokers.length * queuesPerBroker }, () => (d.chance(0.2) ? 0 : d.int(1, 4)));
    weights[0] = Math.max(1, weights[0]!);
    produce.queueSelect = { weights };
  }
  if (d.chance(0.3)) produce.rateChanges = [{ at: `${d.int(1, durationS - 1)}s`, rate: d.logUniform(5, rateMax) }];
  if (d.chance(0.3)) produce.backlog = d.int(1, 2000);
  if (d.chance(0.15)) produce.sendLatencyFaultEnable = true;
  const topic: Record<string, unknown> = { name, brokers: onBrokers, queuesPerBroker, produce };
  if (d.chance(0.1)) topic.retention = `${d.int(2, 60)}s`;
  return topic;
}

function randomGroup(d: Draw, name: string, topics: Record<string, unknown>[]): Record<string, unknown> {
  const orderly = d.chance(0.3);
  const subscribe: Record<string, string> = {};
  for (const t of d.subset(topics)) {
    const tags = Object.keys((t.produce as Record<string, unknown>).tags ?? {});
    subscribe[t.name as string] = tags.length > 0 && d.chance(0.5) ? d.subset(tags).join(" || ") : "*";
  }
  const g: Record<string, unknown> = {
    name, instances: d.int(1, 6), subscribe,
    consumeMode: orderly ? "ORDERLY" : "CONCURRENTLY",
    messageModel: d.chance(0.25) ? "BROADCASTING" : "CLUSTERING",
    consumeFromWhere: d.pick(CONSUME_FROM),
  };
  if (d.chance(0.3)) g.allocate = d.pick(ALLOCATE);
  if (d.chance(0.2)) g.startAt = `${d.int(0, 3000)}ms`;
  const config: Record<string, number | boolean> = {};
  for (const [k, [lo, hi]] of Object.entries(CONFIG_DRAWS)) if (d.chance(0.2)) config[k] = d.int(lo, hi);
  if (config.consumeThreadMin !== undefined) config.consumeThreadMax = Math.max(config.consumeThreadMin as number, 64);
  if (d.chance(0.15)) config.pullThresholdForTopic = d.int(1, 5000);
  if (d.chance(0.1)) config.postSubscriptionWhenPull = true;
  if (Object.keys(config).length > 0) g.config = config;
  const listener: Record<string, unknown> = { consumeTime: durationDist(d, d.logUniform(0.1, 20)) };
  if (d.chance(0.3)) listener.failureProbability = Number((d.chance(0.2) ? 1 : 0.3 * d.logUniform(0.01, 1)).toPrecision(2));
  if (d.chance(0.15)) listener.poisonFraction = 0.01;
  if (d.chance(0.1)) listener.hangFraction = 0.001;
  if (orderly && d.chance(0.3)) listener.autoCommit = false;
  if (orderly && d.chance(0.3)) listener.successResult = "COMMIT";
  if (orderly && d.chance(0.3)) listener.failureResult = "ROLLBACK";
  g.listener = listener;
  return g;
}

/** A small scenario that validates, drawn from `seed` alone. Faults are left to randomFaults. */
export function randomScenario(seed: number, options: RandomScenarioOptions = {}): Record<string, unknown> {
  const streams = new RandomStreams(seed);
  const draw = (label: string) => new Draw(streams.get(`scenario/${label}`));
  const top = draw("top");
  const durationS = top.int(options.durationSMin ?? 5, options.durationSMax ?? 30);
  const profile = top.pick(PROFILES);
  const brokerNames = BROKER_NAMES.slice(0, top.int(1, 3));
  const brokers = brokerNames.map((n, i) => randomBroker(draw(`broker/${i}`), n, profile));
  const topics = Array.from({ length: top.int(1, 2) }, (_, i) => randomTopic(draw(`topic/${i}`), `Topic${i}`, brokerNames, options.rateMax ?? 500, durationS));
  const groups = Array.from({ length: top.int(1, 3) }, (_, i) => randomGroup(draw(`group/${i}`), `G${i + 1}`, topics));
  const scenario: Record<string, unknown> = {
    name: `random-${seed}`,
    description: `Random scenario ${seed} (src/fuzz/randomScenario.ts).`,
    seed,
    duration: `${durationS}s`,
    sampleEvery: top.pick(["500ms", "1s", "2s"]),
    profile,
    phase: top.pick(["random", "aligned"]),
    network: { latency: durationDist(top, top.pick([0.1, 0.3, 1, 5])) },
    brokers,
    topics,
    groups,
  };
  return scenario;
}

/**
 * Run `seed` of the random-scenario corpus: randomScenario(seed) with a fault schedule drawn by
 * randomFaults from the same seed — faults in the first half of the run, the second half to heal.
 */
export function randomScenarioWithFaults(seed: number, options: RandomScenarioOptions = {}): Record<string, unknown> {
  const scenario = randomScenario(seed, options);
  return { ...scenario, faults: randomFaults(scenario, seed) };
}
