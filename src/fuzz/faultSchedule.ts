// Random fault schedules for `rmqsim fuzz` (TigerBeetle's VOPR: faults are data drawn from a seed).
//
// randomFaults(scenario, seed) draws `count` incidents — each a kind, a target that exists in the
// scenario, a start time and a length — and returns them as raw fault entries, exactly as a scenario
// file's `faults` list holds them, so the result can be appended to that list, validated by
// normalizeScenario and written out as a reproducer. Every incident lies inside the fault phase
// [0, faultPhaseUs]: whatever lasts (`for`, `restartAfter`, a hang) is over by its end, and what has no
// end of its own comes in a pair whose second half undoes the first (stop → start, pause → resume,
// scale → scale back, an extra instance started → stopped). The rest of the run is the heal phase, in
// which the cluster must converge. Four kinds change the cluster for good by nature — roleSwap and
// leaderChange (another node is master), duplicateClientId (the instance keeps the borrowed id),
// truncate and offsetIllegal (instantaneous) — and the heal phase then checks that the pipeline works on
// in its new shape.
//
// Determinism: incident i draws only from the stream `fuzz/incident/<i>` of the seed, so asking for one
// more incident never changes the ones before it, and no draw depends on anything but (scenario, seed).
import { normalizeScenario } from "../scenario/normalize.ts";
import { FAULT_KINDS } from "../scenario/faultTypes.ts";
import { instancesMaxWith } from "../scenario/instanceBudget.ts";
import { nodesOf, type Model } from "../scenario/types.ts";
import { RandomStreams, type Rng } from "../sim/streams.ts";

export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultScheduleOptions {
  /** Kinds to draw from (default: every kind of FAULT_KINDS); kinds that do not apply are skipped. */
  kinds?: readonly string[];
  /** End of the fault phase, µs from the start (default: half the scenario's duration). */
  faultPhaseUs?: number;
  /** Incidents to draw (default: 1 to 4, drawn). A pair (stop → start) is one incident, two entries. */
  count?: number;
}

/** One incident's entries: one fault, or a fault and the entry that undoes it. */
export type Incident = Record<string, unknown>[];

/** Shortest fault phase that leaves room for a start and an end on the millisecond grid. */
const PHASE_MS_MIN = 2;
/** Default number of incidents per schedule: uniform on [1, COUNT_MAX_DEFAULT]. */
const COUNT_MAX_DEFAULT = 4;
/** A group scaled out by the fuzzer grows by at most this many instances. */
const SCALE_OUT_MAX = 3;

/**
 * Raw fault entries valid for `scenario` (a raw scenario object), drawn from `seed`; sorted by `at`.
 * Throws the scenario's InputError if the scenario itself is invalid.
 */
export function randomFaults(scenario: Record<string, unknown>, seed: number, options: FaultScheduleOptions = {}): Record<string, unknown>[] {
  const entries = randomIncidents(scenario, seed, options).flat();
  return entries.sort((a, b) => atMs(a) - atMs(b));
}

/** As randomFaults, grouped by incident (the shrinker drops a pair as a whole before its halves). */
export function randomIncidents(scenario: Record<string, unknown>, seed: number, options: FaultScheduleOptions = {}): Incident[] {
  const model = normalizeScenario(scenario);
  const phaseMs = Math.floor(Math.min(options.faultPhaseUs ?? model.durationUs / 2, model.durationUs) / 1000);
  if (phaseMs < PHASE_MS_MIN) return [];
  const topo = topologyOf(model);
  const wanted = new Set(options.kinds ?? FAULT_KINDS);
  const kinds = applicableKinds(topo).filter((k) => wanted.has(k));
  if (kinds.length === 0) return [];
  const streams = new RandomStreams(seed);
  const count = options.count ?? 1 + Math.floor(streams.get("fuzz/count")() * COUNT_MAX_DEFAULT);
  const out: Incident[] = [];
  for (let i = 0; i < count; i++) {
    const d = new Draw(streams.get(`fuzz/incident/${i}`));
    out.push(drawIncident(d.pick(kinds), d, topo, phaseMs));
  }
  return out;
}

/** The kinds that have a valid target in the scenario, in FAULT_KINDS order. */
export function applicableKinds(topo: Topology): FaultKind[] {
  const withInstances = topo.groups.some((g) => g.instances > 0);
  const withTwo = topo.groups.some((g) => g.instances >= 2);
  const classic = topo.brokers.some((b) => b.replication === "classic");
  const dledger = topo.brokers.some((b) => b.replication === "dledger");
  return FAULT_KINDS.filter((k) => {
    switch (k) {
      case "consumerStart": case "consumerStop": case "consumerCrash": case "pause": case "resume": case "latency": case "loss": case "partition":
        return withInstances;
      case "duplicateClientId":
        return withTwo;
      case "roleSwap": case "failover":
        return classic;
      case "leaderChange":
        return dledger;
      case "replicationStall":
        return classic || dledger;
      default:
        return true;
    }
  });
}

export interface Topology {
  /** Each group's instances, and the most it may run beside the others (the instance budget). */
  groups: { name: string; instances: number; instancesMax: number }[];
  brokers: { name: string; replication: "classic" | "dledger" | null }[];
  nodes: string[];
  /** Every queue as `Topic@broker#id`. */
  queues: string[];
}

export function topologyOf(model: Model): Topology {
  const nodeCount = nodesOf(model).length;
  return {
    groups: model.groups.map((g, gi) => ({
      name: g.name,
      instances: g.instances,
      instancesMax: instancesMaxWith(nodeCount, model.groups.reduce((sum, o, oi) => (oi === gi ? sum : sum + o.instances ** 2), 0)),
    })),
    brokers: model.brokers.map((b) => ({ name: b.name, replication: b.replication?.mode ?? null })),
    nodes: nodesOf(model).map((n) => n.name),
    queues: model.topics.flatMap((t) => t.brokers.flatMap((b) => Array.from({ length: t.queuesPerBroker }, (_, q) => `${t.name}@${model.brokers[b]!.name}#${q}`))),
  };
}

/** Draws one incident of `kind`; every time lies in [0, phaseMs]. */
function drawIncident(kind: FaultKind, d: Draw, topo: Topology, phaseMs: number): Incident {
  const atMsValue = d.int(0, phaseMs - 2);
  const at = ms(atMsValue);
  const rest = phaseMs - atMsValue;
  /** A length that ends inside the fault phase: 1 ms to the rest of it. */
  const span = () => ms(d.int(1, rest));
  /** A second time after `at`, for the half of a pair that undoes the first. */
  const later = () => ms(atMsValue + d.int(1, rest));
  const group = () => d.pick(topo.groups.filter((g) => g.instances > 0));
  const instance = () => {
    const g = group();
    return `${g.name}/${d.int(0, g.instances - 1)}`;
  };
  const broker = (f: (b: Topology["brokers"][number]) => boolean = () => true) => d.pick(topo.brokers.filter(f)).name;
  switch (kind) {
    case "consumerStop":
    case "consumerStart": {
      if (kind === "consumerStop") {
        const target = instance();
        return [{ kind: "consumerStop", at, target }, { kind: "consumerStart", at: later(), target }];
      }
      // Starting a running instance does nothing: start one more (the next slot), then stop it again —
      // unless the group is at its instance budget: then stop one and start it again.
      const g = group();
      if (g.instances >= g.instancesMax) {
        const target = `${g.name}/${d.int(0, g.instances - 1)}`;
        return [{ kind: "consumerStop", at, target }, { kind: "consumerStart", at: later(), target }];
      }
      const target = `${g.name}/${g.instances}`;
      return [{ kind: "consumerStart", at, target }, { kind: "consumerStop", at: later(), target }];
    }
    case "consumerCrash":
      return [{
        kind, at, target: instance(), mode: d.pick(["connectionClosed", "vanished"]), restartAfter: span(),
        ...(d.chance(0.25) ? { localOffsets: "lost" } : {}),
      }];
    case "scale": {
      const g = d.pick(topo.groups);
      const to = d.int(0, Math.min(g.instances + SCALE_OUT_MAX, g.instancesMax));
      return [{ kind, at, target: g.name, instances: to }, { kind, at: later(), target: g.name, instances: g.instances }];
    }
    case "pause":
      return [{ kind, at, target: instance(), for: span() }];
    case "resume": {
      const target = instance();
      return [{ kind: "pause", at, target }, { kind: "resume", at: later(), target }];
    }
    case "duplicateClientId": {
      const g = d.pick(topo.groups.filter((x) => x.instances >= 2));
      const a = d.int(0, g.instances - 1);
      const b = (a + d.int(1, g.instances - 1)) % g.instances;
      return [{ kind, at, target: `${g.name}/${a}`, sameAs: `${g.name}/${b}` }];
    }
    case "brokerCrash": {
      const lose = d.chance(0.25) ? { lose: d.chance(0.5) ? "unflushed" : ms(d.int(1, 2000)) } : {};
      return [{ kind, at, target: d.pick(topo.nodes), restartAfter: span(), ...lose }];
    }
    case "brokerReadOnly":
      return [{ kind, at, target: broker(), for: span() }];
    case "roleSwap":
      return [{ kind, at, target: broker((b) => b.replication === "classic") }];
    case "failover":
      return [{ kind, at, target: broker((b) => b.replication === "classic"), restartAfter: span() }];
    case "leaderChange":
      return [{ kind, at, target: broker((b) => b.replication === "dledger") }];
    case "replicationStall": {
      const b = broker((x) => x.replication !== null);
      const replicas = topo.nodes.filter((n) => n.startsWith(`${b}-s`));
      return [{ kind, at, target: d.chance(0.5) || replicas.length === 0 ? b : d.pick(replicas), for: span() }];
    }
    case "lostWakeup":
      return [{ kind, at, target: d.chance(0.5) ? broker() : d.pick(topo.queues), for: span(), probability: probability(d) }];
    case "sendBackFailure":
      return [{ kind, at, target: broker(), for: span(), probability: probability(d), mode: d.pick(["error", "timeout"]) }];
    case "offsetQueryError":
      return [{ kind, at, target: broker(), for: span(), code: d.pick(["SYSTEM_BUSY", "SYSTEM_ERROR"]), probability: probability(d) }];
    case "latency":
      return [{ kind, at, ...links(d, topo, instance), for: span(), extra: ms(d.int(1, 2000)) }];
    case "loss":
      return [{ kind, at, ...links(d, topo, instance), for: span(), probability: probability(d) }];
    case "partition":
      return [{ kind, at, ...links(d, topo, instance), for: span() }];
    case "offsetIllegal": {
      const next = d.pick<number | string>(["min", "max", d.int(0, 1000)]);
      return [{ kind, at, target: d.pick(topo.queues), ...(d.chance(0.5) ? { group: d.pick(topo.groups).name } : {}), nextBeginOffset: next }];
    }
    case "truncate":
      return [{ kind, at, target: d.pick(topo.queues), offset: d.chance(0.5) ? "max" : d.int(0, 1000) }];
    case "hangMessage":
      return [{ kind, at, target: d.pick(topo.queues), duration: span() }];
    case "consumeTime":
      return [{ kind, at, target: d.pick(topo.groups).name, for: span(), consumeTime: { dist: "exponential", mean: ms(d.int(1, 500)) } }];
    case "failureProbability":
      return [{ kind, at, target: d.pick(topo.groups).name, for: span(), probability: probability(d) }];
    case "updateTopic": {
      // An operator's topic change (issue 19): writes shrunk, then reads; or a permission taken and given back.
      const target = d.pick(topo.queues).replace(/#\d+$/, "");
      if (d.chance(0.5)) {
        const n = d.int(1, 8);
        return [{ kind, at, target, writeQueueNums: n }, { kind, at: later(), target, readQueueNums: n }];
      }
      return [{ kind, at, target, perm: d.pick(["r", "w", "none"]) }, { kind, at: later(), target, perm: "rw" }];
    }
    case "brokerPermission":
      return [{ kind, at, target: broker(), perm: d.pick(["r", "w", "none"]), for: span() }];
    case "updateSubscriptionGroup": {
      // A group disabled (or its broadcast consumption) for a while, on one broker or all of them.
      const flag = d.chance(0.7) ? { consumeEnable: false } : { consumeBroadcastEnable: false };
      return [{ kind, at, group: d.pick(topo.groups).name, ...(d.chance(0.5) ? { broker: broker() } : {}), ...flag, for: span() }];
    }
    case "resetOffset": {
      // The operator's resetOffsetByTime (issue 19): back to a time before `at`, or to either end.
      const to = d.chance(0.5) ? { time: ms(d.int(0, atMsValue)) } : d.pick(["earliest", "latest"]);
      return [{ kind, at, group: d.pick(topo.groups).name, topic: d.pick(topo.queues).replace(/@.*$/, ""), to }];
    }
  }
}

/** `clients` and `brokers` of a link fault: everyone, or one instance / one broker. */
function links(d: Draw, topo: Topology, instance: () => string): { clients: string | string[]; brokers: string | string[] } {
  return {
    clients: d.chance(0.3) ? "*" : [instance()],
    brokers: d.chance(0.3) ? "*" : [d.pick(topo.brokers).name],
  };
}

/** A probability: often 1 (the fault always bites), else 0.05–0.95 in steps of 0.05. */
function probability(d: Draw): number {
  return d.chance(0.4) ? 1 : d.int(1, 19) / 20;
}

function ms(n: number): string {
  return `${n}ms`;
}

/** The `at` of a generated entry, ms (every generated time is "<n>ms"). */
function atMs(f: Record<string, unknown>): number {
  return typeof f.at === "string" ? Number.parseInt(f.at, 10) : 0;
}

/** Draws on one stream: whole numbers, choices, coin flips. */
class Draw {
  constructor(private readonly rng: Rng) {}

  /** A whole number in [lo, hi] (lo when hi < lo). */
  int(lo: number, hi: number): number {
    if (hi <= lo) return lo;
    return lo + Math.floor(this.rng() * (hi - lo + 1));
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("pick from an empty list");
    return items[this.int(0, items.length - 1)]!;
  }

  chance(p: number): boolean {
    return this.rng() < p;
  }
}
