// Parsing and validation of the scenario's `faults` list. Targets:
//   "G1/2"  instance 2 (0-based) of group G1        "G1/*"  every instance of G1 (up to its maximum)
//   "G1"    the group (scale, consumeTime, failureProbability)
//   "broker-a"                                       "TopicTest@broker-a#3"  one queue
// Link faults name `clients` (instance targets, or "*") and `brokers` (names, or "*").
import { compileDist } from "./distributions.ts";
import { describeValue, InputError, listChoices } from "./errors.ts";
import { parseDurationUs } from "./units.ts";
import { checkKeys, isRecord, readEnum, readInt, readNumber, readString, show } from "./read.ts";
import { instancesWanted, readInstances } from "./instanceBudget.ts";
import { FAULT_KINDS, type FaultModel, type QueueRef } from "./faultTypes.ts";
import { normalizeUpdateTopic, UPDATE_TOPIC_KEYS } from "./faultUpdateTopic.ts";
import { normalizeResetOffset, RESET_OFFSET_KEYS } from "./faultResetOffset.ts";
import { BROKER_PERMISSION_KEYS, normalizeBrokerPermission, normalizeUpdateSubscriptionGroup, UPDATE_SUBSCRIPTION_GROUP_KEYS } from "./faultBrokerPermission.ts";

interface GroupInfo {
  name: string;
  instances: number;
}
interface Ctx {
  groups: GroupInfo[];
  brokers: string[];
  /** Broker node names (nodesOf) and each node's group. */
  nodes: { name: string; broker: number }[];
  /** Each group's replication mode, null without replicas. */
  replication: ("classic" | "dledger" | null)[];
  topics: { name: string; brokers: number[]; queuesPerBroker: number }[];
}

const COMMON = ["kind", "at"];
const KEYS: Record<(typeof FAULT_KINDS)[number], string[]> = {
  consumerStart: ["target"],
  consumerStop: ["target"],
  consumerCrash: ["target", "mode", "restartAfter", "localOffsets"],
  scale: ["target", "instances"],
  pause: ["target", "for"],
  resume: ["target"],
  duplicateClientId: ["target", "sameAs"],
  brokerCrash: ["target", "restartAfter", "lose"],
  brokerReadOnly: ["target", "for"],
  roleSwap: ["target"],
  failover: ["target", "restartAfter"],
  leaderChange: ["target"],
  replicationStall: ["target", "for"],
  lostWakeup: ["target", "for", "probability"],
  sendBackFailure: ["target", "for", "probability", "mode"],
  offsetQueryError: ["target", "for", "code", "probability"],
  latency: ["clients", "brokers", "for", "extra", "latency"],
  loss: ["clients", "brokers", "for", "probability"],
  partition: ["clients", "brokers", "for"],
  offsetIllegal: ["target", "group", "nextBeginOffset"],
  truncate: ["target", "offset"],
  hangMessage: ["target", "duration"],
  consumeTime: ["target", "for", "consumeTime"],
  failureProbability: ["target", "for", "probability"],
  updateTopic: UPDATE_TOPIC_KEYS,
  resetOffset: RESET_OFFSET_KEYS,
  brokerPermission: BROKER_PERMISSION_KEYS,
  updateSubscriptionGroup: UPDATE_SUBSCRIPTION_GROUP_KEYS,
};

/** Highest instance count each group needs: its `instances`, scale targets and named instances. */
export function instancesNeeded(raw: unknown, groups: GroupInfo[]): number[] {
  return instancesWanted(raw, groups).map((w) => w.count);
}

/** flushIntervalCommitLog (500 ms): with ASYNC_FLUSH, what a crash loses at most of the commit-log tail. */
export const UNFLUSHED_US = 500_000;

export function parseFaults(raw: unknown, ctx: Ctx, instancesMax: number[], durationUs: number): FaultModel[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw new InputError("faults", "must be a list of fault objects");
  const slotBase: number[] = [];
  let acc = 0;
  for (const n of instancesMax) {
    slotBase.push(acc);
    acc += n;
  }
  return raw.map((f, index) => {
    const path = `faults.${index}`;
    if (!isRecord(f)) throw new InputError(path, "must be an object with at least kind and at");
    const kind = readEnum(f, "kind", `${path}.kind`, FAULT_KINDS);
    checkKeys(f, [...COMMON, ...KEYS[kind]], path);
    const atUs = parseDurationUs(f.at, `${path}.at`);
    if (atUs > durationUs) throw new InputError(`${path}.at`, `is after the end of the run (${durationUs / 1e6} s)`);
    const p = new FaultReader(f, path, ctx, instancesMax, slotBase);
    const base = { index, atUs, label: `${kind} ${describeTarget(f)}` };
    switch (kind) {
      case "consumerStart":
      case "consumerStop":
      case "resume":
        return { ...base, kind, consumers: p.instances("target") };
      case "consumerCrash":
        return {
          ...base, kind, consumers: p.instances("target"),
          mode: f.mode === undefined ? "connectionClosed" : readEnum(f, "mode", `${path}.mode`, ["connectionClosed", "vanished"] as const),
          restartAfterUs: p.optDuration("restartAfter"),
          loseLocalOffsets: f.localOffsets === undefined ? false : readEnum(f, "localOffsets", `${path}.localOffsets`, ["kept", "lost"] as const) === "lost",
        };
      case "pause":
        return { ...base, kind, consumers: p.instances("target"), forUs: p.optDuration("for") };
      case "scale": {
        const group = p.group("target");
        return { ...base, kind, group, instances: readInstances(f, "instances", `${path}.instances`, 0) };
      }
      case "duplicateClientId": {
        const [consumer] = p.instances("target");
        const [sameAs] = p.instances("sameAs");
        if (p.instances("target").length !== 1 || p.instances("sameAs").length !== 1) {
          throw new InputError(path, 'target and sameAs must each name one instance, like "G1/1"');
        }
        return { ...base, kind, consumer: consumer!, sameAs: sameAs! };
      }
      case "brokerCrash": {
        // lose: the commit-log tail not yet on disk — "unflushed" (ASYNC_FLUSH's 500 ms flush interval) or a duration.
        let loseUs: number | null = null;
        if (f.lose === "unflushed") loseUs = UNFLUSHED_US;
        else if (f.lose !== undefined) {
          loseUs = p.optDuration("lose");
          if (loseUs === null || loseUs <= 0) throw new InputError(`${path}.lose`, 'must be "unflushed" or a duration greater than 0');
        }
        const node = p.node("target");
        return { ...base, kind, broker: ctx.nodes[node]!.broker, node, restartAfterUs: p.optDuration("restartAfter"), loseUs };
      }
      case "roleSwap":
      case "failover":
      case "leaderChange": {
        // roleSwap / failover: a classic group's slave is made master (by hand or by a controller, §4.11);
        // leaderChange: a DLedger election (§5).
        const broker = p.broker("target");
        const mode = ctx.replication[broker];
        if (mode === null || mode === undefined) throw new InputError(`${path}.target`, `broker "${ctx.brokers[broker]}" has no replicas: give it "replicas" first`);
        if ((kind === "leaderChange") !== (mode === "dledger")) {
          throw new InputError(`${path}.kind`, kind === "leaderChange" ? `"leaderChange" needs a DLedger group (replication.mode "dledger"); use roleSwap or failover` : `a DLedger group changes roles by election: use "leaderChange"`);
        }
        return { ...base, kind, broker, restartAfterUs: kind === "failover" ? p.optDuration("restartAfter") : null };
      }
      case "sendBackFailure":
        return {
          ...base, kind, broker: p.broker("target"), forUs: p.optDuration("for"),
          probability: f.probability === undefined ? 1 : readNumber(f, "probability", `${path}.probability`, 0, 1),
          mode: f.mode === undefined ? "error" : readEnum(f, "mode", `${path}.mode`, ["error", "timeout"] as const),
        };
      case "lostWakeup": {
        // A broker's name, or one of its queues ("T@broker-a#0").
        const queue = typeof f.target === "string" && f.target.includes("#") ? p.queue("target") : null;
        return {
          ...base, kind, broker: queue === null ? p.broker("target") : queue.broker, queue, forUs: p.optDuration("for"),
          probability: f.probability === undefined ? 1 : readNumber(f, "probability", `${path}.probability`, 0, 1),
        };
      }
      case "replicationStall": {
        const node = p.node("target");
        const broker = ctx.nodes[node]!.broker;
        if (ctx.replication[broker] === null) throw new InputError(`${path}.target`, `broker "${ctx.brokers[broker]}" has no replicas`);
        return { ...base, kind, broker, node: ctx.nodes[node]!.name === ctx.brokers[broker] ? -1 : node, forUs: p.optDuration("for") };
      }
      case "brokerReadOnly":
        return { ...base, kind, broker: p.broker("target"), forUs: p.optDuration("for") };
      case "offsetQueryError":
        return {
          ...base, kind, broker: p.broker("target"), forUs: p.optDuration("for"),
          code: f.code === undefined ? "SYSTEM_BUSY" : readEnum(f, "code", `${path}.code`, ["SYSTEM_BUSY", "SYSTEM_ERROR"] as const),
          probability: f.probability === undefined ? 1 : readNumber(f, "probability", `${path}.probability`, 0, 1),
        };
      case "latency": {
        if ((f.extra === undefined) === (f.latency === undefined)) {
          throw new InputError(path, 'give exactly one of "extra" (added one-way delay) or "latency" (a distribution)');
        }
        return {
          ...base, kind, clients: p.clients(), brokers: p.brokers(), forUs: p.optDuration("for"),
          extraUs: f.extra === undefined ? 0 : parseDurationUs(f.extra, `${path}.extra`),
          latency: f.latency === undefined ? null : compileDist(f.latency, "duration", `${path}.latency`),
        };
      }
      case "loss":
        return { ...base, kind, clients: p.clients(), brokers: p.brokers(), forUs: p.optDuration("for"), probability: readNumber(f, "probability", `${path}.probability`, 0, 1) };
      case "partition":
        return { ...base, kind, clients: p.clients(), brokers: p.brokers(), forUs: p.optDuration("for") };
      case "offsetIllegal": {
        const v = f.nextBeginOffset;
        const next = v === "min" || v === "max" ? v : readInt(f, "nextBeginOffset", `${path}.nextBeginOffset`, 0, 2 ** 31);
        const groups = f.group === undefined ? ctx.groups.map((_, i) => i) : [p.groupByName("group")];
        return { ...base, kind, queue: p.queue("target"), groups, nextBeginOffset: next };
      }
      case "truncate": {
        const v = f.offset;
        return { ...base, kind, queue: p.queue("target"), offset: v === "max" ? "max" : readInt(f, "offset", `${path}.offset`, 0, 2 ** 31) };
      }
      case "hangMessage":
        return { ...base, kind, queue: p.queue("target"), durationUs: f.duration === undefined || f.duration === "forever" ? null : parseDurationUs(f.duration, `${path}.duration`) };
      case "consumeTime":
        return { ...base, kind, group: p.group("target"), forUs: p.optDuration("for"), consumeTime: compileDist(f.consumeTime, "duration", `${path}.consumeTime`) };
      case "failureProbability":
        return { ...base, kind, group: p.group("target"), forUs: p.optDuration("for"), probability: readNumber(f, "probability", `${path}.probability`, 0, 1) };
      case "updateTopic":
        return normalizeUpdateTopic(f, path, base, ctx.topics, ctx.brokers);
      case "resetOffset":
        return normalizeResetOffset(f, path, base, ctx.groups, ctx.topics);
      case "brokerPermission":
        return normalizeBrokerPermission(f, path, base, ctx.brokers);
      case "updateSubscriptionGroup":
        return normalizeUpdateSubscriptionGroup(f, path, base, ctx.groups, ctx.brokers);
    }
  });
}

function describeTarget(f: Record<string, unknown>): string {
  if (typeof f.target === "string") return f.target;
  const c = Array.isArray(f.clients) ? f.clients.join(",") : String(f.clients ?? "*");
  const b = Array.isArray(f.brokers) ? f.brokers.join(",") : String(f.brokers ?? "*");
  return `${c} ↔ ${b}`;
}

class FaultReader {
  constructor(
    private readonly f: Record<string, unknown>,
    private readonly path: string,
    private readonly ctx: Ctx,
    private readonly instancesMax: number[],
    private readonly slotBase: number[],
  ) {}

  optDuration(key: string): number | null {
    if (this.f[key] === undefined) return null;
    const us = parseDurationUs(this.f[key], `${this.path}.${key}`);
    if (us <= 0) throw new InputError(`${this.path}.${key}`, "must be greater than 0");
    return us;
  }

  groupByName(key: string): number {
    const name = readString(this.f, key, `${this.path}.${key}`);
    const i = this.ctx.groups.findIndex((g) => g.name === name);
    if (i < 0) throw new InputError(`${this.path}.${key}`, `unknown group ${describeValue(name)}; groups are: ${listChoices(this.ctx.groups.map((g) => g.name))}`);
    return i;
  }

  group(key: string): number {
    const t = readString(this.f, key, `${this.path}.${key}`);
    const i = this.ctx.groups.findIndex((g) => g.name === t);
    if (i < 0) throw new InputError(`${this.path}.${key}`, `${describeValue(t)} is not a group; groups are: ${listChoices(this.ctx.groups.map((g) => g.name))}`);
    return i;
  }

  /** "G1/2" or "G1/*" (or a list of them) → consumer slots. */
  instances(key: string, value: unknown = this.f[key]): number[] {
    const where = `${this.path}.${key}`;
    if (Array.isArray(value)) return [...new Set(value.flatMap((v) => this.instances(key, v)))];
    if (typeof value !== "string") throw new InputError(where, `must name instances like "G1/0" or "G1/*", got ${show(value)}`);
    const m = /^(.+)\/(\d+|\*)$/.exec(value);
    if (!m) throw new InputError(where, `${describeValue(value)} must look like "G1/0" (instance 0 of group G1) or "G1/*"`);
    const gi = this.ctx.groups.findIndex((g) => g.name === m[1]);
    if (gi < 0) throw new InputError(where, `unknown group ${describeValue(m[1])}; groups are: ${listChoices(this.ctx.groups.map((g) => g.name))}`);
    const max = this.instancesMax[gi]!;
    if (m[2] === "*") return Array.from({ length: max }, (_, i) => this.slotBase[gi]! + i);
    const n = Number(m[2]);
    if (n >= max) throw new InputError(where, `group ${m[1]} has instances 0–${max - 1}`);
    return [this.slotBase[gi]! + n];
  }

  clients(): number[] {
    const v = this.f.clients;
    if (v === undefined || v === "*") {
      const total = this.instancesMax.reduce((a, b) => a + b, 0);
      return Array.from({ length: total }, (_, i) => i);
    }
    return this.instances("clients", v);
  }

  broker(key: string, value: unknown = this.f[key]): number {
    const where = `${this.path}.${key}`;
    if (typeof value !== "string") throw new InputError(where, `must be a broker name, got ${show(value)}`);
    const i = this.ctx.brokers.indexOf(value);
    if (i < 0) throw new InputError(where, `unknown broker ${describeValue(value)}; brokers are: ${listChoices(this.ctx.brokers)}`);
    return i;
  }

  /** A broker node: a broker's name (its first master) or a replica's, like "broker-a-s1". */
  node(key: string): number {
    const where = `${this.path}.${key}`;
    const value = this.f[key];
    if (typeof value !== "string") throw new InputError(where, `must be a broker node name, got ${show(value)}`);
    const i = this.ctx.nodes.findIndex((n) => n.name === value);
    if (i < 0) throw new InputError(where, `unknown broker node ${describeValue(value)}; nodes are: ${listChoices(this.ctx.nodes.map((n) => n.name))}`);
    return i;
  }

  brokers(): number[] {
    const v = this.f.brokers;
    if (v === undefined || v === "*") return this.ctx.brokers.map((_, i) => i);
    if (Array.isArray(v)) return [...new Set(v.map((b) => this.broker("brokers", b)))];
    return [this.broker("brokers", v)];
  }

  queue(key: string): QueueRef {
    const where = `${this.path}.${key}`;
    const t = readString(this.f, key, where);
    const m = /^(.+)@(.+)#(\d+)$/.exec(t);
    if (!m) throw new InputError(where, `${describeValue(t)} must name a queue like "TopicTest@broker-a#3"`);
    const topic = this.ctx.topics.findIndex((x) => x.name === m[1]);
    if (topic < 0) throw new InputError(where, `unknown topic ${describeValue(m[1])}; topics are: ${listChoices(this.ctx.topics.map((x) => x.name))}`);
    const broker = this.ctx.brokers.indexOf(m[2]!);
    if (broker < 0 || !this.ctx.topics[topic]!.brokers.includes(broker)) {
      throw new InputError(where, `topic ${m[1]} is not on broker ${describeValue(m[2])}`);
    }
    const queueId = Number(m[3]);
    if (queueId >= this.ctx.topics[topic]!.queuesPerBroker) {
      throw new InputError(where, `topic ${m[1]} has queues 0–${this.ctx.topics[topic]!.queuesPerBroker - 1} per broker`);
    }
    return { topic, broker, queueId };
  }
}

export { readInt };
