// Scenario input → normalised Model, validating every field. Errors are InputError naming the path.
import { compileDist, distTakesMax } from "./distributions.ts";
import type { Dist } from "./distKinds.ts";
import { describeValue, InputError, listChoices } from "./errors.ts";
import { formatBytes, parseBytes, parseDurationUs } from "./units.ts";
import {
  BROKER_CONFIG_DEFAULTS,
  MAX_MESSAGE_SIZE_RANGE,
  SCENARIO_DEFAULTS,
  type BrokerConfig,
} from "./defaults.ts";
import { nodesOf } from "./types.ts";
import type {
  BrokerModel,
  ConsumeFromWhere,
  GroupModel,
  Model,
  ProduceModel,
  ScenarioInput,
  SubscriptionModel,
  TopicModel,
} from "./types.ts";
import { parseScenarioExpectations } from "./expectations.ts";
import { parseFaults } from "./faults.ts";
import { checkInstanceBudget, instancesWanted, readInstances } from "./instanceBudget.ts";
import { normalizeAllocate } from "./allocate.ts";
import { checkKeys, isRecord, readEnum, readInt, readNumber, readString, show } from "./read.ts";
import { normalizeSubscriptionGroup } from "./subscriptionGroup.ts";
import { normalizeStore, parseStartTime } from "./store.ts";
import { normalizeListener } from "./listener.ts";
import { normalizeConsumerConfig } from "./consumerConfig.ts";
import { normalizeTopicConfig } from "./topicConfigInput.ts";
import { normalizeRateChanges } from "./rateChanges.ts";
import { normalizeSqlSubscription, tagCodeSet } from "./subscriptionFilter.ts";
import { normalizeProperties } from "./messageProperties.ts";
import { normalizeReplication } from "./replication.ts";
import { assertJsonShape } from "./jsonShape.ts";

const TOP_KEYS = [
  "$schema", "name", "description", "seed", "duration", "sampleEvery", "profile", "brokers", "network",
  "topics", "groups", "faults", "expect", "startTime", "phase",
];
const CONSUME_MODES = ["CONCURRENTLY", "ORDERLY"] as const, MESSAGE_MODELS = ["CLUSTERING", "BROADCASTING"] as const;
const CONSUME_FROM = ["CONSUME_FROM_LAST_OFFSET", "CONSUME_FROM_FIRST_OFFSET", "CONSUME_FROM_TIMESTAMP"] as const;
const NAME_RE = /^[A-Za-z0-9_.-]{1,127}$/, SCENARIO_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,126}$/;

export { expectNames } from "./expectations.ts";

export function normalizeScenario(raw: unknown): Model {
  if (!isRecord(raw)) throw new InputError("(scenario)", "must be a JSON object");
  assertJsonShape(raw);
  checkKeys(raw, TOP_KEYS, "");
  const input = raw as unknown as ScenarioInput, name = readString(raw, "name", "name");
  if (!SCENARIO_NAME_RE.test(name)) throw new InputError("name", `${describeValue(name)} must be 1–127 characters of A–Z a–z 0–9 _ . -, starting with a letter or digit (it names the report folder)`);
  const seed = raw.seed === undefined ? SCENARIO_DEFAULTS.seed : readInt(raw, "seed", "seed", 0, 2 ** 32 - 1);
  const durationUs = parseDurationUs(raw.duration ?? SCENARIO_DEFAULTS.duration, "duration");
  if (durationUs <= 0) throw new InputError("duration", "must be greater than 0");
  const sampleEveryUs = parseDurationUs(raw.sampleEvery ?? SCENARIO_DEFAULTS.sampleEvery, "sampleEvery");
  if (sampleEveryUs < 1000) throw new InputError("sampleEvery", "must be at least 1ms");
  if (durationUs / sampleEveryUs > 1_000_000) {
    throw new InputError("sampleEvery", "gives more than 1,000,000 samples for this duration; sample less often");
  }
  const profile = raw.profile === undefined ? SCENARIO_DEFAULTS.profile : readEnum(raw, "profile", "profile", ["4.7", "4.9", "5.x"]);
  const phase = raw.phase === undefined ? SCENARIO_DEFAULTS.phase : readEnum(raw, "phase", "phase", ["random", "aligned"] as const);
  let latencySpec: unknown = SCENARIO_DEFAULTS.networkLatency;
  if (raw.network !== undefined) {
    if (!isRecord(raw.network)) throw new InputError("network", "must be an object");
    checkKeys(raw.network, ["latency"], "network");
    if (raw.network.latency !== undefined) latencySpec = raw.network.latency;
  }
  const latency = compileDist(latencySpec, "duration", "network.latency");

  if (!Array.isArray(raw.brokers) || raw.brokers.length === 0) {
    throw new InputError("brokers", "must be a non-empty list of brokers");
  }
  const startTimeUs = parseStartTime(raw.startTime);
  const brokers = raw.brokers.map((b, i) => normalizeBroker(b, i, startTimeUs, profile));
  uniqueNames(brokers, "brokers");
  const nodes = nodesOf({ brokers });
  for (const n of nodes) {
    if (n.brokerId > 0 && brokers.some((b) => b.name === n.name)) throw new InputError(`brokers.${n.broker}.replicas`, `its replica is named "${n.name}", which is also a broker's name`);
  }

  if (!Array.isArray(raw.topics) || raw.topics.length === 0) throw new InputError("topics", "must be a non-empty list of topics");
  const topics = raw.topics.map((t, i) => normalizeTopic(t, i, brokers));
  uniqueNames(topics, "topics");

  if (!Array.isArray(raw.groups) || raw.groups.length === 0) throw new InputError("groups", "must be a non-empty list of consumer groups");
  const groups = raw.groups.map((g, i) => normalizeGroup(g, i, topics));
  uniqueNames(groups, "groups");

  // Instances a group may ever run (scale faults, named instances) and their client ids.
  const wanted = instancesWanted(raw.faults, groups);
  checkInstanceBudget(wanted, nodes.length);
  const need = wanted.map((w) => w.count);
  let pidNext = 1000;
  groups.forEach((g, gi) => {
    g.instancesMax = need[gi]!;
    const pinned = (raw.groups as Record<string, unknown>[])[gi]!.clientIds;
    if (pinned !== undefined) {
      if (!Array.isArray(pinned) || pinned.some((x) => typeof x !== "string" || x === "")) {
        throw new InputError(`groups.${gi}.clientIds`, "must be a list of non-empty strings, one per instance");
      }
      if (pinned.length < g.instancesMax) {
        throw new InputError(`groups.${gi}.clientIds`, `lists ${pinned.length} ids but the group runs up to ${g.instancesMax} instances`);
      }
      g.clientIds = pinned.slice(0, g.instancesMax) as string[];
    } else {
      // clientIP@instanceName, one host per instance; the instance name stands for the pid RocketMQ uses.
      g.clientIds = Array.from({ length: g.instancesMax }, (_, i) => `10.0.${gi}.${i + 1}@${pidNext + i}`);
    }
    pidNext += g.instancesMax;
  });
  const faults = parseFaults(raw.faults, {
    groups: groups.map((g) => ({ name: g.name, instances: g.instances })),
    brokers: brokers.map((b) => b.name),
    nodes: nodes.map((n) => ({ name: n.name, broker: n.broker })),
    replication: brokers.map((b) => b.replication?.mode ?? null),
    topics: topics.map((t) => ({ name: t.name, brokers: t.brokers, queuesPerBroker: t.queuesPerBroker })),
  }, need, durationUs);
  // A crash that loses the commit-log tail needs the store to remember where each recent append began.
  for (const f of faults) if (f.kind === "brokerCrash" && f.loseUs !== null) brokers[f.broker]!.store.tailHistoryUs = Math.max(brokers[f.broker]!.store.tailHistoryUs, f.loseUs);
  // A promoted classic slave cuts the log back to its replication point, which may lag by a whole stall.
  for (const f of faults) if ((f.kind === "roleSwap" || f.kind === "failover") && brokers[f.broker]!.replication?.mode === "classic") brokers[f.broker]!.store.tailHistoryUs = durationUs;
  const { expect, expectations } = parseScenarioExpectations(raw.expect, groups, { durationUs, sampleEveryUs });
  const description = raw.description === undefined ? "" : readString(raw, "description", "description", true);
  return { name, description, seed, durationUs, sampleEveryUs, profile, phase, latency, brokers, topics, groups, faults, expect, expectations, input };
}

function uniqueNames(items: { name: string }[], path: string): void {
  const seen = new Set<string>();
  items.forEach((it, i) => {
    if (seen.has(it.name)) throw new InputError(`${path}.${i}.name`, `"${it.name}" is used twice`);
    seen.add(it.name);
  });
}

function normalizeBroker(raw: unknown, index: number, startTimeUs: number, profile: string): BrokerModel {
  const path = `brokers.${index}`;
  if (!isRecord(raw)) throw new InputError(path, "must be an object");
  checkKeys(raw, ["name", "hotBytes", "maxMessageSize", "config", "store", "replicas", "brokerRole", "replication"], path);
  const name = readString(raw, "name", `${path}.name`);
  if (!NAME_RE.test(name)) throw new InputError(`${path}.name`, `${describeValue(name)} must be 1–127 characters of A–Z a–z 0–9 _ . -`);
  const hotBytes = raw.hotBytes === undefined ? SCENARIO_DEFAULTS.hotBytes : parseBytes(raw.hotBytes, `${path}.hotBytes`);
  const maxMessageSize = normalizeMaxMessageSize(raw.maxMessageSize, `${path}.maxMessageSize`);
  const config: BrokerConfig = { ...BROKER_CONFIG_DEFAULTS };
  if (raw.config !== undefined) {
    if (!isRecord(raw.config)) throw new InputError(`${path}.config`, "must be an object");
    checkKeys(raw.config, Object.keys(BROKER_CONFIG_DEFAULTS), `${path}.config`);
    for (const [k, v] of Object.entries(raw.config)) {
      const key = k as keyof BrokerConfig;
      const def = BROKER_CONFIG_DEFAULTS[key];
      const p = `${path}.config.${k}`;
      if (typeof def === "boolean") {
        if (typeof v !== "boolean") throw new InputError(p, `must be true or false, got ${describeValue(v)}`);
        (config as unknown as Record<string, unknown>)[k] = v;
      } else if (typeof def === "string") {
        if (typeof v !== "string") throw new InputError(p, "must be a string");
        (config as unknown as Record<string, unknown>)[k] = v;
      } else {
        (config as unknown as Record<string, unknown>)[k] = readInt(raw.config, k, p, key === "retryQueueNums" ? 0 : 1, 2 ** 31 - 1);
      }
    }
  }
  const levels = config.messageDelayLevel.trim().split(/\s+/);
  const delayLevelsUs = [0];
  levels.forEach((l, i) => {
    const m = /^(\d+)([smhd])$/.exec(l);
    if (!m) throw new InputError(`${path}.config.messageDelayLevel`, `level ${i + 1} ${describeValue(l)} must look like 1s, 5m, 2h or 1d`);
    const unit = { s: 1e6, m: 60e6, h: 3600e6, d: 86400e6 }[m[2] as "s" | "m" | "h" | "d"];
    delayLevelsUs.push(Number(m[1]) * unit);
  });
  const broker: BrokerModel = { index, name, hotBytes, maxMessageSize, config, delayLevelsUs, store: normalizeStore(raw.store, `${path}.store`, startTimeUs, maxMessageSize) };
  const replication = normalizeReplication(raw, path, profile);
  if (replication !== undefined) broker.replication = replication;
  return broker;
}

function normalizeMaxMessageSize(raw: unknown, path: string): number {
  if (raw === undefined) return SCENARIO_DEFAULTS.maxMessageSize;
  const bytes = parseBytes(raw, path);
  const [min, max] = MAX_MESSAGE_SIZE_RANGE;
  if (bytes < min || bytes > max) {
    throw new InputError(path, `${describeValue(raw)} must be from ${min} byte to ${formatBytes(max)} (${max} bytes); RocketMQ's default is 4 MiB`);
  }
  return bytes;
}

function normalizeTopic(raw: unknown, index: number, brokers: BrokerModel[]): TopicModel {
  const path = `topics.${index}`;
  if (!isRecord(raw)) throw new InputError(path, "must be an object");
  checkKeys(raw, ["name", "brokers", "queuesPerBroker", "retention", "produce", "readQueueNums", "writeQueueNums", "perm"], path);
  const name = readString(raw, "name", `${path}.name`);
  if (!NAME_RE.test(name) || name.startsWith("%")) {
    throw new InputError(`${path}.name`, `${describeValue(name)} must be 1–127 characters of A–Z a–z 0–9 _ . - (and not start with %)`);
  }
  if (!Array.isArray(raw.brokers) || raw.brokers.length === 0) {
    throw new InputError(`${path}.brokers`, "must list at least one broker name");
  }
  const brokerIdx = raw.brokers.map((b, i) => {
    const found = brokers.find((x) => x.name === b);
    if (!found) {
      throw new InputError(`${path}.brokers.${i}`, `unknown broker ${describeValue(b)}; brokers are: ${listChoices(brokers.map((x) => x.name))}`);
    }
    return found.index;
  });
  if (new Set(brokerIdx).size !== brokerIdx.length) throw new InputError(`${path}.brokers`, "lists a broker twice");
  const queuesPerBroker = raw.queuesPerBroker === undefined ? SCENARIO_DEFAULTS.queuesPerBroker : readInt(raw, "queuesPerBroker", `${path}.queuesPerBroker`, 1, 1024);
  // Simple retention (per message, by age) only when asked for; otherwise the brokers' commit-log files decide.
  const retentionUs = raw.retention === undefined ? Infinity : parseDurationUs(raw.retention, `${path}.retention`);
  if (retentionUs <= 0) throw new InputError(`${path}.retention`, "must be greater than 0");
  let produce: ProduceModel | null = null;
  let tags: string[] = [];
  if (raw.produce !== undefined) {
    const r = normalizeProduce(raw.produce, `${path}.produce`, brokerIdx.length * queuesPerBroker);
    produce = r.produce;
    tags = r.tags;
    checkBodyBytes(produce.bodyBytes, `${path}.produce.bodyBytes`, brokerIdx.map((b) => brokers[b]!));
  }
  return { index, name, brokers: brokerIdx, queuesPerBroker, retentionUs, produce, tags, ...normalizeTopicConfig(raw, path, queuesPerBroker) };
}

/**
 * RocketMQ refuses a body above maxMessageSize (the producer's Validators#checkMessage, the store's
 * CommitLog), so a body size that can draw one is an input error. The producer may send to any broker
 * of the topic (failover), so the strictest broker's limit applies.
 */
function checkBodyBytes(bodyBytes: Dist, path: string, brokers: BrokerModel[]): void {
  let strictest = brokers[0]!;
  for (const b of brokers) if (b.maxMessageSize < strictest.maxMessageSize) strictest = b;
  const limit = strictest.maxMessageSize;
  const top = bodyBytes.valueMax;
  if (top <= limit) return;
  const draws = top === Infinity
    ? `${bodyBytes.kind} has no largest value, so it can draw bodies of any size`
    : `can draw bodies up to ${formatBytes(top)} (${top} bytes)`;
  const fix = distTakesMax(bodyBytes.kind) ? `bound it with "max" (e.g. "max": ${limit})` : "use smaller sizes";
  throw new InputError(
    path,
    `${draws}, but brokers.${strictest.index}.maxMessageSize (${strictest.name}) is ${formatBytes(limit)} (${limit} bytes), ` +
      `the largest body the broker accepts: ${fix} or raise maxMessageSize`,
  );
}

function normalizeProduce(raw: unknown, path: string, queueCount: number): { produce: ProduceModel; tags: string[] } {
  if (!isRecord(raw)) throw new InputError(path, "must be an object");
  checkKeys(raw, ["rate", "arrival", "bodyBytes", "tags", "properties", "queueSelect", "rateChanges", "backlog", "sendLatencyFaultEnable"], path);
  const rate = readNumber(raw, "rate", `${path}.rate`, 0, 10_000_000);
  const arrival = raw.arrival === undefined ? SCENARIO_DEFAULTS.arrival : readEnum(raw, "arrival", `${path}.arrival`, ["poisson", "uniform"]);
  const bodyBytes = compileDist(raw.bodyBytes ?? SCENARIO_DEFAULTS.bodyBytes, "bytes", `${path}.bodyBytes`);
  const tags: string[] = [];
  const tagWeights: number[] = [];
  if (raw.tags !== undefined) {
    if (!isRecord(raw.tags) || Object.keys(raw.tags).length === 0) {
      throw new InputError(`${path}.tags`, 'must be an object of tag → weight, e.g. { "TagA": 3, "TagB": 1 }');
    }
    for (const [tag, w] of Object.entries(raw.tags)) {
      if (!/^[^|\s*]+$/.test(tag)) throw new InputError(`${path}.tags`, `tag ${describeValue(tag)} may not contain spaces, "|" or "*"`);
      tags.push(tag);
      tagWeights.push(readNumber(raw.tags, tag, `${path}.tags.${tag}`, 0, 1e9));
    }
    if (tagWeights.every((w) => w === 0)) throw new InputError(`${path}.tags`, "at least one weight must be above 0");
  }
  let queueSelect: ProduceModel["queueSelect"] = SCENARIO_DEFAULTS.queueSelect as ProduceModel["queueSelect"];
  if (raw.queueSelect !== undefined) {
    if (isRecord(raw.queueSelect)) {
      checkKeys(raw.queueSelect, ["weights"], `${path}.queueSelect`);
      const w = raw.queueSelect.weights;
      if (!Array.isArray(w) || w.length !== queueCount || w.some((x) => typeof x !== "number" || !(x >= 0))) {
        throw new InputError(`${path}.queueSelect.weights`, `must be ${queueCount} non-negative numbers, one per queue`);
      }
      if (w.every((x) => x === 0)) throw new InputError(`${path}.queueSelect.weights`, "at least one weight must be above 0");
      queueSelect = { weights: w as number[] };
    } else {
      queueSelect = readEnum<"roundRobin" | "random">(raw, "queueSelect", `${path}.queueSelect`, ["roundRobin", "random"]);
    }
  }
  const rateChanges = normalizeRateChanges(raw.rateChanges, `${path}.rateChanges`, rate);
  const backlog = raw.backlog === undefined ? 0 : readInt(raw, "backlog", `${path}.backlog`, 0, 100_000_000);
  const produce: ProduceModel = { rate, arrival, bodyBytes, tagWeights, queueSelect, rateChanges, backlog };
  if (raw.sendLatencyFaultEnable !== undefined) {
    if (typeof raw.sendLatencyFaultEnable !== "boolean") throw new InputError(`${path}.sendLatencyFaultEnable`, `must be true or false, got ${show(raw.sendLatencyFaultEnable)}`);
    if (raw.sendLatencyFaultEnable) produce.sendLatencyFaultEnable = true;
  }
  if (raw.properties !== undefined) produce.properties = normalizeProperties(raw.properties, `${path}.properties`);
  return { produce, tags };
}

function normalizeGroup(raw: unknown, index: number, topics: TopicModel[]): GroupModel {
  const path = `groups.${index}`;
  if (!isRecord(raw)) throw new InputError(path, "must be an object");
  checkKeys(raw, ["name", "instances", "clientIds", "allocate", "subscribe", "consumeFromWhere", "consumeMode", "messageModel", "consumeTimestampBefore", "config", "listener", "startAt", "subscriptionGroup"], path);
  // The model builds the strategy from these options, with real queue names.
  const allocate = normalizeAllocate(raw.allocate ?? "AVG", `${path}.allocate`);
  const name = readString(raw, "name", `${path}.name`);
  if (!NAME_RE.test(name) || name === "DEFAULT_CONSUMER") {
    throw new InputError(`${path}.name`, `${describeValue(name)} must be 1–127 characters of A–Z a–z 0–9 _ . - and not DEFAULT_CONSUMER`);
  }
  const instances = raw.instances === undefined ? SCENARIO_DEFAULTS.instances : readInstances(raw, "instances", `${path}.instances`, 1);
  if (!isRecord(raw.subscribe) || Object.keys(raw.subscribe).length === 0) {
    throw new InputError(`${path}.subscribe`, 'must map at least one topic to an expression, e.g. { "TopicTest": "*" }');
  }
  const subscriptions: SubscriptionModel[] = [];
  for (const [topicName, expr] of Object.entries(raw.subscribe)) {
    const p = `${path}.subscribe.${topicName}`;
    const topic = topics.find((t) => t.name === topicName);
    if (!topic) throw new InputError(p, `unknown topic ${describeValue(topicName)}; topics are: ${listChoices(topics.map((t) => t.name))}`);
    if (isRecord(expr)) {
      subscriptions.push(normalizeSqlSubscription(expr, topic, p));
      continue;
    }
    if (typeof expr !== "string" || expr.trim() === "") throw new InputError(p, 'must be "*" or tags joined by "||", or { "sql": "<SQL92 expression>" }');
    const tagSet = parseTagExpression(expr, topic, p);
    subscriptions.push(tagSet === null ? { topic: topic.index, expression: expr, tagSet } : { topic: topic.index, expression: expr, tagSet, codeSet: tagCodeSet(expr)! });
  }
  const consumeFromWhere: ConsumeFromWhere = raw.consumeFromWhere === undefined
    ? SCENARIO_DEFAULTS.consumeFromWhere
    : readEnum(raw, "consumeFromWhere", `${path}.consumeFromWhere`, CONSUME_FROM);
  const consumeMode = raw.consumeMode === undefined ? "CONCURRENTLY" : readEnum(raw, "consumeMode", `${path}.consumeMode`, CONSUME_MODES);
  const messageModel = raw.messageModel === undefined ? "CLUSTERING" : readEnum(raw, "messageModel", `${path}.messageModel`, MESSAGE_MODELS);
  const consumeTimestampBeforeUs = raw.consumeTimestampBefore === undefined
    ? SCENARIO_DEFAULTS.consumeTimestampBackMs * 1000
    : parseDurationUs(raw.consumeTimestampBefore, `${path}.consumeTimestampBefore`);
  const config = normalizeConsumerConfig(raw.config, `${path}.config`);
  const { consumeTime, failureProbability, poisonFraction, hangFraction, orderlyResults } = normalizeListener(raw.listener, `${path}.listener`, consumeMode);
  const startAtUs = raw.startAt === undefined ? 0 : parseDurationUs(raw.startAt, `${path}.startAt`);
  return {
    index, name, instances, subscriptions, consumeFromWhere, consumeMode, messageModel, consumeTimestampBeforeUs, config, consumeTime,
    failureProbability, poisonFraction, hangFraction, orderlyResults,
    startAtUs, allocate, instancesMax: instances, clientIds: [],
    ...(raw.subscriptionGroup === undefined ? {} : { subscriptionGroup: normalizeSubscriptionGroup(raw.subscriptionGroup, `${path}.subscriptionGroup`) }),
  };
}

/** "*" → null (all); "TagA || TagB" → their indexes. Unknown tags are allowed (they match nothing). */
function parseTagExpression(expr: string, topic: TopicModel, path: string): Set<number> | null {
  const trimmed = expr.trim();
  if (trimmed === "*") return null;
  const set = new Set<number>();
  for (const part of trimmed.split("||")) {
    const tag = part.trim();
    // A lone "|" can never match: tag names may not contain it, so "TagA|TagB" is a typo for "||".
    if (tag === "" || /\s|\*|\|/.test(tag)) throw new InputError(path, `${describeValue(expr)} must be "*" or tags joined by "||"`);
    const idx = topic.tags.indexOf(tag);
    // An unknown tag is legal in RocketMQ (it simply matches nothing); map it to an index no message has.
    set.add(idx >= 0 ? idx : -2 - set.size);
  }
  return set;
}
