// Mutations of scenario files for the fuzz corpus (issue 15): take a shipped scenario, pick a place in its
// JSON, and break it the way a hostile user or a careless edit would — wrong types, missing fields,
// extreme numbers, odd unicode, deep nesting, bad durations, sizes, distributions, targets and
// expectations. Case i of seed S is drawn from its own stream ("mutate/<i>"), so the in-suite slice is
// the first cases of the nightly corpus and any case can be rebuilt alone from (seed, index).
// runMutant then says what became of it: rejected by validation naming a field, simulated cleanly, or
// a finding (any other error). Limits are counted in events, never wall time, so outcomes are the same
// on every machine.
import { simulate } from "../run/simulate.ts";
import { InputError } from "../scenario/errors.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import type { Model } from "../scenario/types.ts";
import { RandomStreams, type Rng } from "../sim/streams.ts";

export const MUTATION_OPERATORS = [
  "deleteKey", "wrongType", "extremeNumber", "nudgeNumber", "unicode", "deepNesting", "badDuration", "badSize",
  "badDistribution", "badTarget", "badExpectation", "unknownKey", "duplicateEntry", "swapValue", "nonJson", "addFault",
] as const;
export type MutationOperator = (typeof MUTATION_OPERATORS)[number];

/** A shipped scenario to mutate: its file name (for reports) and its parsed JSON. */
export interface BaseScenario { name: string; json: Record<string, unknown> }

export interface Mutant {
  index: number;
  base: string;
  /** Each operator applied, in order, with the path it hit ("badDuration@faults.0.at"). */
  applied: { op: MutationOperator; path: string }[];
  scenario: Record<string, unknown>;
}

type Key = string | number;
type Container = Record<string, unknown> | unknown[];
interface Site { path: Key[]; value: unknown }

const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
/** A deep copy when the value can be cloned; a function or symbol planted by nonJson is shared as is. */
function copyOf<T>(v: T): T {
  try { return structuredClone(v); } catch { return v; }
}
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Every place in the document below the root, down to `depthMax` (a deeply nested mutant is not walked further). */
function sites(doc: unknown, depthMax = 10): Site[] {
  const out: Site[] = [];
  const stack: Site[] = [{ path: [], value: doc }];
  while (stack.length > 0) {
    const s = stack.pop()!;
    if (s.path.length > 0) out.push(s);
    if (s.path.length >= depthMax || typeof s.value !== "object" || s.value === null) continue;
    for (const [k, v] of Object.entries(s.value)) stack.push({ path: [...s.path, Array.isArray(s.value) ? Number(k) : k], value: v });
  }
  return out;
}

/** The last non-index key of a path: `topics.0.brokers.1` → "brokers". */
function keyOf(path: readonly Key[]): string {
  for (let i = path.length - 1; i >= 0; i--) if (typeof path[i] === "string") return path[i] as string;
  return "";
}

function parentOf(doc: unknown, path: readonly Key[]): Container | undefined {
  let at: unknown = doc;
  for (const k of path.slice(0, -1)) {
    if (typeof at !== "object" || at === null || !Object.hasOwn(at, k)) return undefined;
    at = (at as Record<Key, unknown>)[k];
  }
  return typeof at === "object" && at !== null ? (at as Container) : undefined;
}

/** Sets an own property even for "__proto__" (as JSON.parse would), so the key reaches the validator. */
const setOwn = (obj: Container, key: Key, value: unknown): void =>
  void Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });

function setAt(doc: unknown, path: readonly Key[], value: unknown): void {
  const parent = parentOf(doc, path);
  if (parent !== undefined) setOwn(parent, path[path.length - 1]!, value);
}

const DURATION_KEYS = new Set(["duration", "sampleEvery", "at", "for", "restartAfter", "lose", "retention", "consumeTimestampBefore", "startAt", "extra", "fileReservedTime", "cleanResourceInterval", "lag", "consumeTime", "latency"]);
const SIZE_KEYS = new Set(["hotBytes", "maxMessageSize", "bodyBytes", "mappedFileSizeCommitLog", "diskBytes", "diskUsedBytes"]);
const DIST_KEYS = new Set(["consumeTime", "bodyBytes", "latency", "lag"]);
const TARGET_KEYS = new Set(["target", "sameAs", "clients", "group"]);

const EXTREMES: readonly unknown[] = [
  0, -1, 1, -0, 0.5, 1e308, -1e308, 1e-308, 5e-324, 2 ** 53 + 1, 2 ** 31, 2 ** 31 - 1, 2 ** 32, 2 ** 63, 1e21,
  123456789012345678901234567890, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 10_000, 65536, 100_000_000,
];
const BAD_DURATIONS: readonly unknown[] = [
  "10 parsecs", "-5s", "1e999ms", "1e3ms", "5", "", " ", "5 s", "5S", "5sec", "∞", "NaN", "0x10ms", "1.5.5s",
  "99999999999999999h", "0s", "0", 0, -1, "1_000ms", "٣s", "5µs", "1e-9ms", ".5s", "5.s", "-0s", "+5s", "1d", "5ms ",
  "\u202E5s", "5s\u0000", 1e308, 2 ** 53 + 1, 0.0001, "0.0000001us", "4503599627370497us",
];
const BAD_SIZES: readonly unknown[] = [
  "10 parsecs", "-1KiB", "1KB", "1.5B", "1e999B", "5", "9999999TiB", 0.5, -1, "1 MiB", "1mib", "0B", 0, 1, "1024B",
  "4MiB", "1GiB", "1.5KiB", "8TiB", 2 ** 53 + 1, "", "1kib", "\uFEFF1KiB", 1e308,
];
const UNICODE: readonly string[] = [
  "🚀", "\u202Eevil", "\u0000", "\uD800", "\uDFFF", "a\u200Db", "e\u0301", "\uFEFF", "Ω≈ç√", "名前", "\u2028", "%DLQ%G1",
  "x".repeat(100_000), " ", "G1/0", "broker-a", "*", "||", "__proto__", "constructor",
];
const BAD_TARGETS: readonly unknown[] = [
  "G9/0", "G1/99999", "G1/-1", "G1/", "/0", "G1/*/*", "broker-z", "TopicTest@broker-a#999", "TopicTest@broker-z#0",
  "Nope@broker-a#0", "TopicTest@broker-a#-1", "*", "", "G1/1e3", "broker-a-s9", "__proto__", "constructor", "G1/00",
  "G1/0 ", "TopicTest@@broker-a#0", "G1/9999", ["G1/0", "G9/0"], [], 7, null, "G1", "broker-a-s1",
];
const WRONG_TYPES: readonly unknown[] = ["x", "", 1, 0, true, false, null, [], {}, [1], { a: 1 }, ["x", 2]];
const UNKNOWN_KEYS = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "nmae", "🚀", "", "\u0000", "valueOf"];

function badExpectations(): string[] {
  const nest = (n: number) => `${"(".repeat(n)}1${")".repeat(n)} > 0`;
  return [
    nest(5), nest(200), nest(5000), `${"-".repeat(20_000)}1 < 0`, `${Array(20_000).fill("1").join(" + ")} > 0`,
    "max(constructor) > 0", "5constructor > 0", "__proto__ > 0", "constructor.name == 0", "toString > 0",
    "groups.__proto__.consumed > 0", "0/0 == 0", "1/0 > 0", "messages.lost / 0 >= 0", "-(1e308*10) < 0", "1e999 > 0",
    "mean(throughput.consumed, 10m..) > 0", "mean(throughput.consumed, 5s..1s) > 0", "at(lag.committed, -1s) < 0",
    "first(nope > 0) < 1s", "never(flowControl.count > 0 and)", "", " ", "messages.lost ==", "messages.lost == 0 ==",
    "messages.🚀 > 0", "messages.lost\u0000 == 0", "\uD800 > 0", "messages.lost == 0", "sum(pulls) >= 0",
    `messages.lost == ${"9".repeat(12_000)}`, "max(cache.countPerQueueMax, 0..1s) <= 1032", "last(queues.owned) >= 0",
    "groups.G1.consumed >= 0", "groups.G1.instances.0.consumed >= 0", "5 5 > 0", "5ms5 > 0", ")(", "max() > 0",
    "max(cache.count,) > 0", "max(cache.count, 1s..2s, 3) > 0", "1 < 2 < 3", "messages.lost == 0 or messages.lost > 0",
    "NaN == NaN", "Infinity > 0", "first(flowControl.count > 0) < 5s", "at(lag.committed, 1s) >= 0",
    "latency.endToEnd.p99Ms < 2s", "min(pool.busy) >= 0", "messages.lost.constructor > 0", "valueOf > 0",
  ];
}

/** Distribution specs that break one rule each, and a few legal edge cases that must simulate. */
function badDistributions(unit: "ms" | "KiB"): unknown[] {
  const u = (n: number | string) => `${n}${unit}`;
  return [
    { dist: "zipf", mean: u(1) }, { dist: "const" }, { dist: "const", value: u(0) }, { dist: "uniform", min: u(5), max: u(1) },
    { dist: "uniform", min: u(0), max: u(0) }, { dist: "uniform", min: u(-1), max: u(1) }, { dist: "exponential" },
    { dist: "exponential", mean: u(0) }, { dist: "exponential", mean: u(1), max: u(0) }, { dist: "normal", mean: u(1), sd: u(-1) },
    { dist: "normal", mean: u(1), sd: u("1e308") }, { dist: "lognormal", median: u(5), p99: u(1) }, { dist: "lognormal", median: u(1), p99: u(1) },
    { dist: "lognormal", median: u("0.001"), p99: u(1e6), max: u(4) }, { dist: "pareto", scale: u(1), shape: 0 },
    { dist: "pareto", scale: u(1), shape: 0.01 }, { dist: "pareto", scale: u(1), shape: 0.01, max: u(2) },
    { dist: "empirical", values: [] }, { dist: "empirical", values: [[u(1), 0]] }, { dist: "empirical", values: [[u(1), -1]] },
    { dist: "empirical", values: [["x", 1]] }, { dist: "empirical", values: [[u(1)]] }, { dist: "empirical", values: [[u(1), 1e308], [u(2), 1e308]] },
    { dist: "__proto__" }, { dist: "constructor" }, { dist: "toString", mean: u(1) }, { dist: "const", value: u(1), extra: 1 },
    { dist: null }, {}, [], u("1e999"), { dist: "normal", mean: u(1), sd: u(0) }, { dist: "empirical", values: [[u(1), 1], [u(3), 2]] },
  ];
}

/** Scenario names the fault templates aim at: real ones most of the time, so some mutants simulate. */
function namesOf(doc: Record<string, unknown>) {
  const list = (k: string) => (Array.isArray(doc[k]) ? (doc[k] as unknown[]).filter(isObject) : []);
  const str = (v: unknown, dflt: string) => (typeof v === "string" ? v : dflt);
  const groups = list("groups").map((g) => ({ name: str(g.name, "G1"), instances: typeof g.instances === "number" ? g.instances : 1 }));
  const brokers = list("brokers").map((b) => str(b.name, "broker-a"));
  const topics = list("topics").map((t) => ({
    name: str(t.name, "TopicTest"), broker: Array.isArray(t.brokers) ? str(t.brokers[0], "broker-a") : "broker-a",
    queues: typeof t.queuesPerBroker === "number" ? t.queuesPerBroker : 4,
  }));
  return { groups: groups.length ? groups : [{ name: "G1", instances: 1 }], brokers: brokers.length ? brokers : ["broker-a"], topics: topics.length ? topics : [{ name: "TopicTest", broker: "broker-a", queues: 4 }] };
}

/** A fault entry of a random kind aimed at the scenario's own consumers, brokers and queues. */
function randomFaultEntry(doc: Record<string, unknown>, rng: Rng): Record<string, unknown> {
  const n = namesOf(doc);
  const g = pick(rng, n.groups), b = pick(rng, n.brokers), t = pick(rng, n.topics);
  const inst = `${g.name}/${Math.floor(rng() * Math.max(1, Math.min(g.instances, 50)))}`;
  const queue = `${t.name}@${t.broker}#${Math.floor(rng() * Math.max(1, Math.min(t.queues, 1024)))}`;
  const ms = (lo: number, hi: number) => `${Math.round(lo + rng() * (hi - lo))}ms`;
  const fields: Record<string, () => Record<string, unknown>> = {
    consumerStart: () => ({ target: inst }), consumerStop: () => ({ target: inst }), resume: () => ({ target: inst }),
    consumerCrash: () => ({ target: inst, mode: pick(rng, ["connectionClosed", "vanished"]), restartAfter: ms(100, 1500) }),
    pause: () => ({ target: inst, for: ms(50, 1000) }), scale: () => ({ target: g.name, instances: 1 + Math.floor(rng() * 6) }),
    duplicateClientId: () => ({ target: `${g.name}/0`, sameAs: inst }), brokerCrash: () => ({ target: b, restartAfter: ms(100, 1500) }),
    brokerReadOnly: () => ({ target: b, for: ms(100, 1500) }), roleSwap: () => ({ target: b }), leaderChange: () => ({ target: b }),
    failover: () => ({ target: b, restartAfter: ms(100, 1000) }), replicationStall: () => ({ target: b, for: ms(100, 1000) }),
    lostWakeup: () => ({ target: rng() < 0.5 ? b : queue, for: ms(100, 1000), probability: rng() }),
    sendBackFailure: () => ({ target: b, for: ms(100, 1000), probability: rng() }),
    offsetQueryError: () => ({ target: b, for: ms(100, 1000), code: pick(rng, ["SYSTEM_BUSY", "SYSTEM_ERROR"]) }),
    latency: () => ({ clients: inst, brokers: "*", for: ms(100, 1000), extra: ms(1, 100) }),
    loss: () => ({ clients: "*", brokers: [b], for: ms(100, 1000), probability: rng() }),
    partition: () => ({ clients: inst, brokers: [b], for: ms(100, 1000) }),
    offsetIllegal: () => ({ target: queue, nextBeginOffset: pick(rng, ["min", "max", 0, 10]) }),
    truncate: () => ({ target: queue, offset: pick(rng, ["max", 0, 5]) }), hangMessage: () => ({ target: queue, duration: ms(10, 500) }),
    consumeTime: () => ({ target: g.name, for: ms(100, 1000), consumeTime: ms(1, 50) }),
    failureProbability: () => ({ target: g.name, for: ms(100, 1000), probability: rng() }),
  };
  const kind = pick(rng, Object.keys(fields));
  return { kind, at: ms(0, 1800), ...fields[kind]!() };
}

/** Applies `op` somewhere in `doc` (in place) and returns the path it hit. */
function applyOperator(doc: Record<string, unknown>, op: MutationOperator, rng: Rng): string {
  const all = sites(doc);
  const choose = (want: (s: Site) => boolean, fallback: Key[]): Site => {
    const found = all.filter(want);
    return found.length > 0 ? pick(rng, found) : { path: fallback, value: parentOf(doc, fallback)?.[fallback.at(-1) as never] };
  };
  const anySite = () => pick(rng, all);
  const listOf = (k: string): unknown[] => (Array.isArray(doc[k]) ? (doc[k] as unknown[]) : (doc[k] = []) as unknown[]);
  let site: Site;
  switch (op) {
    case "deleteKey": {
      site = anySite();
      const parent = parentOf(doc, site.path)!;
      const k = site.path.at(-1)!;
      if (Array.isArray(parent)) parent.splice(k as number, 1);
      else delete parent[k as string];
      break;
    }
    case "wrongType":
      site = anySite();
      setAt(doc, site.path, pick(rng, WRONG_TYPES.filter((v) => typeof v !== typeof site.value || Array.isArray(v) !== Array.isArray(site.value))));
      break;
    case "extremeNumber":
      site = rng() < 0.7 ? choose((s) => typeof s.value === "number", ["seed"]) : anySite();
      setAt(doc, site.path, pick(rng, EXTREMES));
      break;
    case "nudgeNumber": {
      // Mostly legal variations, so the corpus also simulates new mixes of the shipped settings.
      site = choose((s) => typeof s.value === "number", ["seed"]);
      const v = typeof site.value === "number" ? site.value : 1;
      setAt(doc, site.path, pick(rng, [v * 2, Math.floor(v / 2), v + 1, Math.max(0, v - 1), Math.round(v * 1.5), v * 10]));
      break;
    }
    case "unicode": {
      site = choose((s) => typeof s.value === "string", ["name"]);
      const u = pick(rng, UNICODE), v = String(site.value ?? "");
      const parent = parentOf(doc, site.path);
      const k = site.path.at(-1)!;
      // Renaming a key (a subscribed topic, a tag) reaches code that reads keys, not values.
      if (rng() < 0.2 && isObject(parent) && typeof k === "string" && k !== "name") {
        delete parent[k];
        setOwn(parent, k + u, site.value);
      } else setAt(doc, site.path, pick(rng, [u, v + u, u + v, `${v.slice(0, 1)}${u}${v.slice(1)}`]));
      break;
    }
    case "deepNesting": {
      site = anySite();
      const depth = pick(rng, [33, 100, 1000, 5000]);
      let v: unknown = site.value;
      for (let i = 0; i < depth; i++) v = rng() < 0.5 ? [v] : { dist: v };
      setAt(doc, site.path, v);
      break;
    }
    case "badDuration":
      site = choose((s) => DURATION_KEYS.has(keyOf(s.path)) || (keyOf(s.path) !== "bodyBytes" && /^(mean|median|p99|min|max|sd|scale|value)$/.test(keyOf(s.path))), ["duration"]);
      setAt(doc, site.path, pick(rng, BAD_DURATIONS));
      break;
    case "badSize":
      site = choose((s) => SIZE_KEYS.has(keyOf(s.path)) || s.path.includes("bodyBytes"), ["brokers", 0, "hotBytes"]);
      setAt(doc, site.path, pick(rng, BAD_SIZES));
      break;
    case "badDistribution": {
      site = choose((s) => DIST_KEYS.has(keyOf(s.path)) && s.path.at(-1) === keyOf(s.path), ["network", "latency"]);
      const bytes = keyOf(site.path) === "bodyBytes";
      if (parentOf(doc, site.path) === undefined) doc.network = {};
      setAt(doc, site.path, pick(rng, badDistributions(bytes ? "KiB" : "ms")));
      break;
    }
    case "badTarget": {
      const targets = all.filter((s) => (s.path[0] === "faults" && (TARGET_KEYS.has(keyOf(s.path)) || keyOf(s.path) === "brokers")) || (s.path[0] === "topics" && keyOf(s.path) === "brokers" && typeof s.value === "string"));
      if (targets.length > 0 && rng() < 0.7) {
        site = pick(rng, targets);
        setAt(doc, site.path, pick(rng, BAD_TARGETS));
      } else {
        const f = randomFaultEntry(doc, rng);
        const key = "target" in f ? "target" : pick(rng, ["clients", "brokers"]);
        f[key] = pick(rng, BAD_TARGETS);
        site = { path: ["faults", listOf("faults").push(f) - 1, key], value: f[key] };
      }
      break;
    }
    case "badExpectation": {
      const list = listOf("expect");
      const i = list.length > 0 && rng() < 0.5 ? Math.floor(rng() * list.length) : list.length;
      list[i] = pick(rng, badExpectations());
      site = { path: ["expect", i], value: list[i] };
      break;
    }
    case "unknownKey": {
      site = choose((s) => isObject(s.value), ["network"]);
      const target = isObject(site.value) ? site.value : doc;
      const k = pick(rng, UNKNOWN_KEYS);
      setOwn(target, k, pick(rng, WRONG_TYPES));
      site = { path: [...site.path, k], value: undefined };
      break;
    }
    case "duplicateEntry": {
      site = choose((s) => Array.isArray(s.value) && s.value.length > 0, ["brokers"]);
      const list = Array.isArray(site.value) ? site.value : listOf("brokers");
      const copy = copyOf(pick(rng, list.length ? list : [{ name: "broker-a" }]));
      // Half the copies get a fresh name: a legal extra broker, topic or group rather than a clash.
      if (isObject(copy) && typeof copy.name === "string" && rng() < 0.5) copy.name = `${copy.name}-copy`;
      list.push(copy);
      break;
    }
    case "swapValue":
      site = anySite();
      setAt(doc, site.path, copyOf(anySite().value));
      break;
    case "nonJson": {
      // What only the API can be handed (issue 15 item 9): none of it is JSON, all must be refused by path.
      site = anySite();
      const cyclic: Record<string, unknown> = { name: "loop" };
      cyclic.self = cyclic;
      const values = [10n, () => 1, Symbol("s"), NaN, Infinity, -Infinity, new Date(0), new Map([["a", 1]]), Object.create(null) as unknown, cyclic, [, 1], undefined];
      setAt(doc, site.path, pick(rng, values));
      break;
    }
    case "addFault": {
      const list = listOf("faults");
      list.push(randomFaultEntry(doc, rng));
      site = { path: ["faults", list.length - 1], value: undefined };
      break;
    }
  }
  return site.path.join(".");
}

/** Case `index` of the corpus drawn from `seed`: a copy of one base scenario with 1–3 operators applied. */
export function mutantCase(bases: readonly BaseScenario[], seed: number, index: number): Mutant {
  const rng = new RandomStreams(seed).get(`mutate/${index}`);
  const base = pick(rng, bases);
  const scenario = structuredClone(base.json);
  const u = rng();
  const count = u < 0.6 ? 1 : u < 0.85 ? 2 : 3;
  const applied: Mutant["applied"] = [];
  for (let i = 0; i < count; i++) {
    const op = pick(rng, MUTATION_OPERATORS);
    applied.push({ op, path: applyOperator(scenario, op, rng) });
  }
  return { index, base: base.name, applied, scenario };
}

/** How far a corpus case may run: virtual time, events, and what it may make — all deterministic. */
export interface CorpusLimits {
  /** Virtual time simulated (the scenario's duration, capped), the check period, and the event cap. */
  durationUs: number; checkEveryUs: number; maxEvents: number;
  /** Messages stored before the run (backlog × queues, summed over topics). */ backlogMessagesMax: number;
  /** Messages produced in the capped run at each topic's highest rate. */ producedMessagesMax: number;
  /** Consumer instances, summed over groups (each is a whole client). */ instancesMax: number;
}

/**
 * The corpus's budget. Validation accepts up to 10⁸ backlog and 10⁷ msg/s, far beyond what an
 * in-process corpus can hold; those cases belong to the resource guards' tests (`--max-memory`), so they
 * are counted as overBudget here instead of run.
 */
export const CORPUS_LIMITS: Readonly<CorpusLimits> = {
  durationUs: 2_000_000, checkEveryUs: 100_000, maxEvents: 500_000,
  backlogMessagesMax: 1_000_000, producedMessagesMax: 400_000, instancesMax: 200,
};

export type CaseOutcome = { kind: "rejected"; message: string } | { kind: "simulated"; complete: boolean }
  | { kind: "overBudget"; reason: string } | { kind: "finding"; stage: "validate" | "simulate"; error: string };

/**
 * Whether a validation error names a field: the message starts with a path (not the whole input) and
 * every segment of it but the last is in the file, so a user can find the place (the last may be a
 * field that is missing).
 */
export function namesField(error: InputError, scenario: Record<string, unknown>): boolean {
  if (error.path === "" || error.path === "(scenario)" || !error.message.startsWith(`${error.path}: `)) return false;
  const path = error.path.split(".");
  return path.length === 1 || parentOf(scenario, path) !== undefined;
}

function overBudget(model: Model, limits: CorpusLimits): string | null {
  let backlog = 0, produced = 0;
  for (const t of model.topics) {
    if (t.produce === null) continue;
    const queues = t.brokers.length * t.queuesPerBroker;
    backlog += t.produce.backlog * queues;
    const rate = Math.max(t.produce.rate, ...t.produce.rateChanges.map((c) => c.rate));
    produced += (rate * limits.durationUs) / 1e6;
  }
  const instances = model.groups.reduce((a, g) => a + g.instancesMax, 0);
  if (backlog > limits.backlogMessagesMax) return `backlog of ${backlog} messages`;
  if (produced > limits.producedMessagesMax) return `${Math.round(produced)} messages produced`;
  if (instances > limits.instancesMax) return `${instances} consumer instances`;
  return null;
}

/** The error's class (InvariantError, ConservationError, TypeError…) and message. */
const errorText = (e: unknown): string => (e instanceof Error ? `${e.constructor.name}: ${e.message}`.slice(0, 500) : String(e));

/** Validates a mutant and, if it is valid and within budget, simulates it with periodic invariant checks. */
export function runMutant(scenario: Record<string, unknown>, limits: CorpusLimits = CORPUS_LIMITS): CaseOutcome {
  let model: Model;
  try {
    model = normalizeScenario(scenario);
  } catch (e) {
    if (e instanceof InputError && namesField(e, scenario)) return { kind: "rejected", message: e.message };
    return { kind: "finding", stage: "validate", error: e instanceof InputError ? `InputError naming no field: ${e.message.slice(0, 300)}` : errorText(e) };
  }
  const reason = overBudget(model, limits);
  if (reason !== null) return { kind: "overBudget", reason };
  try {
    const durationUs = Math.min(model.durationUs, limits.durationUs);
    const r = simulate(model, { durationUs, checkEveryUs: limits.checkEveryUs, maxEvents: limits.maxEvents });
    return { kind: "simulated", complete: r.summary.complete };
  } catch (e) {
    return { kind: "finding", stage: "simulate", error: errorText(e) };
  }
}
