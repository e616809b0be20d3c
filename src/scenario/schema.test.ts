// scenarios/schema.json must agree with normalizeScenario: same keys everywhere, same numeric ranges,
// same string forms, same verdict on sample scenarios. The keys the validator accepts are read from
// its own "unknown key ... allowed: ..." messages, so neither side can gain a key the other lacks.
// No JSON Schema library is installed, so a small validator for the keywords the schema uses sits
// below; a test fails if the schema starts using a keyword it does not implement.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ALLOCATE_STRATEGY_NAMES } from "./allocate.ts";
import { FAULT_KINDS } from "./faultTypes.ts";
import { DIST_NAMES } from "./distributions.ts";
import { InputError } from "./errors.ts";
import { BROKER_CONFIG_DEFAULTS, CONSUMER_CONFIG_DEFAULTS, CONSUMER_CONFIG_RANGES } from "./defaults.ts";
import { MIB_SETTINGS } from "./consumerConfig.ts";
import { normalizeScenario } from "./normalize.ts";
import { UnknownKeyError } from "./read.ts";
import { rejection } from "./testRejection.ts";

type Json = any; // test inputs are free-form JSON, edited in place
type Schema = Record<string, Json> | boolean;

const SCENARIO_DIR = new URL("../../scenarios/", import.meta.url);
const schema: Record<string, Json> = JSON.parse(readFileSync(new URL("schema.json", SCENARIO_DIR), "utf8"));

// ------------------------------------------------------------------------------------------------
// A validator for the subset of JSON Schema 2020-12 the schema uses.

const ANNOTATIONS = new Set(["$schema", "$defs", "title", "description", "default"]);
const ASSERTIONS = new Set([
  "$ref", "type", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "pattern", "minItems", "maxItems", "uniqueItems",
  "items", "prefixItems", "properties", "required", "additionalProperties", "propertyNames", "minProperties", "anyOf", "oneOf", "not",
  "minLength", "maxLength",
]);

function resolveRef(ref: string): Schema {
  const m = /^#\/\$defs\/([A-Za-z]+)$/.exec(ref);
  const target = m ? schema.$defs?.[m[1]!] : undefined;
  if (target === undefined) throw new Error(`unresolvable $ref ${ref}`);
  return target;
}

function typeOk(type: string, v: unknown): boolean {
  switch (type) {
    case "object": return typeof v === "object" && v !== null && !Array.isArray(v);
    case "array": return Array.isArray(v);
    case "string": return typeof v === "string";
    case "number": return typeof v === "number" && Number.isFinite(v);
    case "integer": return typeof v === "number" && Number.isInteger(v);
    case "boolean": return typeof v === "boolean";
    case "null": return v === null;
    default: throw new Error(`unknown type ${type}`);
  }
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Every error of `v` against `s`, each prefixed by its path; empty when valid. */
function schemaErrors(s: Schema, v: unknown, path = "$"): string[] {
  if (s === true) return [];
  if (s === false) return [`${path}: not allowed`];
  const out: string[] = [];
  const fail = (msg: string) => out.push(`${path}: ${msg}`);
  if (s.$ref !== undefined) out.push(...schemaErrors(resolveRef(s.$ref), v, path));
  if (s.type !== undefined && !typeOk(s.type, v)) return [...out, `${path}: not ${s.type}`];
  if (s.enum !== undefined && !s.enum.some((e: unknown) => same(e, v))) fail("not in enum");
  if (s.const !== undefined && !same(s.const, v)) fail(`not ${JSON.stringify(s.const)}`);
  if (typeof v === "number") {
    if (s.minimum !== undefined && v < s.minimum) fail(`< ${s.minimum}`);
    if (s.maximum !== undefined && v > s.maximum) fail(`> ${s.maximum}`);
    if (s.exclusiveMinimum !== undefined && v <= s.exclusiveMinimum) fail(`<= ${s.exclusiveMinimum}`);
  }
  if (typeof v === "string" && s.pattern !== undefined && !new RegExp(s.pattern, "u").test(v)) fail(`does not match ${s.pattern}`);
  if (typeof v === "string" && s.minLength !== undefined && [...v].length < s.minLength) fail(`shorter than ${s.minLength}`);
  // The validator counts UTF-16 units, JSON Schema code points: the same for the ASCII of expectations.
  if (typeof v === "string" && s.maxLength !== undefined && [...v].length > s.maxLength) fail(`longer than ${s.maxLength}`);
  if (Array.isArray(v)) {
    if (s.minItems !== undefined && v.length < s.minItems) fail(`fewer than ${s.minItems} items`);
    if (s.maxItems !== undefined && v.length > s.maxItems) fail(`more than ${s.maxItems} items`);
    if (s.uniqueItems === true && new Set(v.map((x) => JSON.stringify(x))).size !== v.length) fail("items not unique");
    const prefix: Schema[] = s.prefixItems ?? [];
    v.forEach((x, i) => {
      const sub = i < prefix.length ? prefix[i] : s.items;
      if (sub !== undefined) out.push(...schemaErrors(sub!, x, `${path}.${i}`));
    });
  }
  if (typeOk("object", v)) {
    const obj = v as Record<string, unknown>;
    const props: Record<string, Schema> = s.properties ?? {};
    for (const key of s.required ?? []) if (!(key in obj)) fail(`missing ${key}`);
    if (s.minProperties !== undefined && Object.keys(obj).length < s.minProperties) fail(`fewer than ${s.minProperties} properties`);
    for (const [key, x] of Object.entries(obj)) {
      if (s.propertyNames !== undefined) out.push(...schemaErrors(s.propertyNames, key, `${path}.${key}(name)`));
      if (key in props) out.push(...schemaErrors(props[key]!, x, `${path}.${key}`));
      else if (s.additionalProperties !== undefined) out.push(...schemaErrors(s.additionalProperties, x, `${path}.${key}`));
    }
  }
  if (s.anyOf !== undefined && !s.anyOf.some((sub: Schema) => schemaErrors(sub, v, path).length === 0)) fail("matches no anyOf branch");
  if (s.oneOf !== undefined && s.oneOf.filter((sub: Schema) => schemaErrors(sub, v, path).length === 0).length !== 1) fail("does not match exactly one oneOf branch");
  if (s.not !== undefined && schemaErrors(s.not, v, path).length === 0) fail("matches not");
  return out;
}

const schemaOk = (v: unknown) => schemaErrors(schema, v).length === 0;

function validatorOk(v: unknown): boolean {
  try {
    normalizeScenario(v);
    return true;
  } catch (e) {
    if (e instanceof InputError) return false;
    throw e;
  }
}


/** Both verdicts, for a readable failure message. */
function verdicts(v: unknown): { schema: boolean; validator: boolean; errors: string[] } {
  return { schema: schemaOk(v), validator: validatorOk(v), errors: schemaErrors(schema, v) };
}

// ------------------------------------------------------------------------------------------------
// Scenarios to probe with.

function base(): Json {
  return {
    name: "probe",
    duration: "10s",
    brokers: [{ name: "broker-a" }],
    topics: [{ name: "TopicTest", brokers: ["broker-a"], queuesPerBroker: 2, produce: { rate: 10 } }],
    groups: [{ name: "G1", subscribe: { TopicTest: "*" } }],
  };
}

function edited(edit: (s: Json) => void): Json {
  const s = base();
  edit(s);
  return s;
}

/** Follows a dotted path, creating objects on the way. */
function setPath(root: Json, path: string, value: unknown): void {
  const keys = path.split(".");
  let node = root;
  for (const k of keys.slice(0, -1)) node = node[k] ??= {};
  node[keys[keys.length - 1]!] = value;
}

/** The subschema at a dotted path of the schema, following $refs. */
function schemaAt(path: string): Record<string, Json> {
  let node: Json = schema;
  for (const k of path.split(".")) {
    while (node.$ref) node = resolveRef(node.$ref);
    node = node[k];
    if (node === undefined) throw new Error(`no schema at ${path}`);
  }
  while (node.$ref) node = resolveRef(node.$ref);
  return node;
}

/** Walks every subschema with its location. */
function walk(s: Json, at: string, visit: (s: Record<string, Json>, at: string) => void): void {
  if (typeof s !== "object" || s === null) return;
  visit(s, at);
  for (const [k, sub] of Object.entries(s.properties ?? {})) walk(sub, `${at}.properties.${k}`, visit);
  for (const [k, sub] of Object.entries(s.$defs ?? {})) walk(sub, `${at}.$defs.${k}`, visit);
  for (const key of ["items", "additionalProperties", "propertyNames", "not"]) walk(s[key], `${at}.${key}`, visit);
  for (const key of ["anyOf", "oneOf", "prefixItems"]) (s[key] ?? []).forEach((sub: Json, i: number) => walk(sub, `${at}.${key}.${i}`, visit));
}

// ------------------------------------------------------------------------------------------------

describe("scenarios/schema.json: form", () => {
  it("is a draft 2020-12 schema using only keywords this test's validator implements", () => {
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    walk(schema, "$", (s, at) => {
      for (const k of Object.keys(s)) expect(ANNOTATIONS.has(k) || ASSERTIONS.has(k), `${at}: keyword ${k}`).toBe(true);
    });
  });

  it("closes every object (additionalProperties false, or a value schema for maps) and describes every property", () => {
    walk(schema, "$", (s, at) => {
      if (s.type === "object") expect(s.additionalProperties, `${at}: additionalProperties`).toBeDefined();
      if (s.properties !== undefined) expect(s.additionalProperties, `${at}: additionalProperties`).toBe(false);
      for (const [k, p] of Object.entries<Json>(s.properties ?? {})) {
        if (k !== "dist") expect(typeof p.description, `${at}.properties.${k}: description`).toBe("string");
      }
    });
  });

  it("accepts the default of every property it gives one for, and so does the validator", () => {
    const cases: [string, unknown][] = [];
    const visit = (path: string, s: Json) => {
      for (const [k, p] of Object.entries<Json>(s.properties ?? {})) if (p.default !== undefined) cases.push([`${path}.${k}`, p.default]);
    };
    visit("", schema);
    visit("brokers.0", schemaAt("$defs.broker"));
    visit("brokers.0.config", schemaAt("$defs.broker.properties.config"));
    visit("topics.0", schemaAt("$defs.topic"));
    visit("topics.0.produce", schemaAt("$defs.produce"));
    visit("groups.0", schemaAt("$defs.group"));
    visit("groups.0.config", schemaAt("$defs.group.properties.config"));
    visit("groups.0.listener", schemaAt("$defs.group.properties.listener"));
    expect(cases.length).toBeGreaterThan(40);
    for (const [path, value] of cases) {
      const s = edited((x) => setPath(x, path.replace(/^\./, ""), structuredClone(value)));
      expect(verdicts(s), path).toMatchObject({ schema: true, validator: true });
    }
  });
});

describe("scenarios/schema.json: the same keys as normalizeScenario", () => {
  /** The keys normalizeScenario accepts at `path`, read from its unknown-key message. */
  function allowedKeys(scenario: Json, path: string): string[] {
    const e = rejection(scenario);
    expect(e.path).toBe(path === "" ? "zzUnknownKey" : `${path}.zzUnknownKey`);
    if (!(e instanceof UnknownKeyError)) throw new Error(`not an unknown-key error: "${e.reason}"`);
    return [...e.allowed].sort();
  }

  const locations: [string, string, (s: Json) => void][] = [
    ["", "", (s) => (s.zzUnknownKey = 1)],
    ["network", "properties.network", (s) => (s.network = { zzUnknownKey: 1 })],
    ["brokers.0", "$defs.broker", (s) => (s.brokers[0].zzUnknownKey = 1)],
    ["brokers.0.config", "$defs.broker.properties.config", (s) => (s.brokers[0].config = { zzUnknownKey: 1 })],
    ["topics.0", "$defs.topic", (s) => (s.topics[0].zzUnknownKey = 1)],
    ["topics.0.produce", "$defs.produce", (s) => (s.topics[0].produce.zzUnknownKey = 1)],
    ["topics.0.produce.queueSelect", "$defs.produce.properties.queueSelect.anyOf.1", (s) => (s.topics[0].produce.queueSelect = { weights: [1, 1], zzUnknownKey: 1 })],
    ["topics.0.produce.rateChanges.0.burst", "$defs.produce.properties.rateChanges.items.anyOf.1.properties.burst", (s) => (s.topics[0].produce.rateChanges = [{ burst: { at: "1s", rate: 1, for: "1s", zzUnknownKey: 1 } }])],
    ["topics.0.produce.rateChanges.0.ramp", "$defs.produce.properties.rateChanges.items.anyOf.2.properties.ramp", (s) => (s.topics[0].produce.rateChanges = [{ ramp: { to: 1, over: "1s", zzUnknownKey: 1 } }])],
    ["groups.0", "$defs.group", (s) => (s.groups[0].zzUnknownKey = 1)],
    ["groups.0.config", "$defs.group.properties.config", (s) => (s.groups[0].config = { zzUnknownKey: 1 })],
    ["groups.0.listener", "$defs.group.properties.listener", (s) => (s.groups[0].listener = { zzUnknownKey: 1 })],
  ];

  for (const [path, schemaPath, edit] of locations) {
    it(`${path || "(top level)"}: schema properties = keys the validator allows`, () => {
      const props = Object.keys((schemaPath === "" ? schema : schemaAt(schemaPath)).properties).sort();
      expect(props).toEqual(allowedKeys(edited(edit), path));
      expect(schemaOk(edited(edit))).toBe(false);
    });
  }

  it("topics.0.produce.rateChanges.0: the keys of the three entry forms = keys the validator allows", () => {
    const forms: Json[] = schemaAt("$defs.produce.properties.rateChanges.items").anyOf;
    const props = [...new Set(forms.flatMap((f) => Object.keys(f.properties)))].sort();
    const probe = edited((s) => (s.topics[0].produce.rateChanges = [{ at: "1s", rate: 1, zzUnknownKey: 1 }]));
    expect(props).toEqual(allowedKeys(probe, "topics.0.produce.rateChanges.0"));
    expect(schemaOk(probe)).toBe(false);
  });

  it("faults: the same kinds, each with the keys the validator allows", () => {
    const kinds: Json[] = schemaAt("$defs.fault").anyOf;
    expect(kinds.map((k) => k.properties.kind.const).sort()).toEqual([...FAULT_KINDS].sort());
    for (const k of kinds) {
      const kind = k.properties.kind.const;
      const probe = edited((s) => (s.faults = [{ kind, at: "1s", zzUnknownKey: 1 }]));
      expect(Object.keys(k.properties).sort(), kind).toEqual(allowedKeys(probe, "faults.0"));
      expect(schemaOk(probe), kind).toBe(false);
    }
  });

  it("allocate: the same strategy names, each with the options the validator allows", () => {
    const objects: Json[] = [...schemaAt("$defs.allocateInner").anyOf, ...schemaAt("$defs.allocate").anyOf].filter((b) => b.type === "object");
    expect(objects.map((o) => o.properties.strategy.const).sort()).toEqual([...ALLOCATE_STRATEGY_NAMES].sort());
    for (const o of objects) {
      const strategy = o.properties.strategy.const;
      const e = rejection(edited((s) => (s.groups[0].allocate = { strategy, zzUnknownKey: 1 })));
      expect(e.path).toBe("groups.0.allocate.zzUnknownKey");
      const m = /takes (?:only (.*)|no options)$/.exec(e.reason);
      const allowed = m?.[1] === undefined ? [] : m[1].split(", ");
      expect(Object.keys(o.properties).filter((p) => p !== "strategy").sort(), strategy).toEqual(allowed.sort());
    }
  });

  it("distributions: the same kinds and parameters, for durations and sizes", () => {
    for (const def of ["durationDist", "bytesDist"]) {
      const kinds = schemaAt(`$defs.${def}`).anyOf.slice(1);
      expect(kinds.map((k: Json) => k.properties.dist.const)).toEqual([...DIST_NAMES]);
      for (const k of kinds) {
        const name = k.properties.dist.const;
        const e = rejection(edited((s) => (s.groups[0].listener = { consumeTime: { dist: name, zzUnknownKey: 1 } })));
        // "which takes mean, sd; optionally max": required keys, then the optional ones.
        const m = /which takes (.*?)(?:; optionally (.*?))?(?: \(did you mean|$)/.exec(e.reason);
        const required = m![1]!.split(", ");
        const optional = m![2] === undefined ? [] : m![2].split(", ");
        expect(Object.keys(k.properties).filter((p) => p !== "dist").sort(), name).toEqual([...required, ...optional].sort());
        expect(k.required.sort(), name).toEqual(["dist", ...required].sort());
      }
    }
  });
});

describe("scenarios/schema.json: ranges agree with the validator", () => {
  it("consumer config: every key of CONSUMER_CONFIG_DEFAULTS with CONSUMER_CONFIG_RANGES' min and max and the default", () => {
    const props = schemaAt("$defs.group.properties.config").properties;
    expect(Object.keys(props).sort()).toEqual(Object.keys(CONSUMER_CONFIG_DEFAULTS).sort());
    for (const [key, range] of Object.entries(CONSUMER_CONFIG_RANGES)) {
      const p = props[key];
      expect(p.default, key).toBe(CONSUMER_CONFIG_DEFAULTS[key as keyof typeof CONSUMER_CONFIG_DEFAULTS]);
      // A MiB setting is a number of MiB (the first branch) or a size string (the second).
      const n = MIB_SETTINGS.has(key as keyof typeof CONSUMER_CONFIG_DEFAULTS) ? p.anyOf[0] : p;
      if (range === "boolean") expect(p.type, key).toBe("boolean");
      else expect([n.type, n.minimum, n.maximum], key).toEqual(["integer", range[0], range[1]]);
    }
  });

  it("broker config: every key of BROKER_CONFIG_DEFAULTS with its default", () => {
    const props = schemaAt("$defs.broker.properties.config").properties;
    expect(Object.keys(props).sort()).toEqual(Object.keys(BROKER_CONFIG_DEFAULTS).sort());
    for (const [key, value] of Object.entries(BROKER_CONFIG_DEFAULTS)) expect(props[key].default, key).toBe(value);
  });

  /** Numeric fields: scenario path, schema path, and edits that keep cross-field rules satisfied. */
  const numeric: [string, string, ((s: Json) => void)?][] = [
    ["seed", "properties.seed"],
    ["topics.0.queuesPerBroker", "$defs.topic.properties.queuesPerBroker"],
    ["topics.0.produce.rate", "$defs.produce.properties.rate"],
    ["topics.0.produce.backlog", "$defs.produce.properties.backlog"],
    // "At least one weight above 0" is a rule across tags: keep another tag at 1.
    ["topics.0.produce.tags.TagA", "$defs.produce.properties.tags.additionalProperties", (s) => (s.topics[0].produce.tags = { TagB: 1 })],
    ["topics.0.produce.rateChanges.0.rate", "$defs.produce.properties.rateChanges.items.anyOf.0.properties.rate", (s) => (s.topics[0].produce.rateChanges = [{ at: "1s" }])],
    ["topics.0.produce.rateChanges.0.burst.rate", "$defs.produce.properties.rateChanges.items.anyOf.1.properties.burst.properties.rate", (s) => (s.topics[0].produce.rateChanges = [{ burst: { at: "1s", for: "1s" } }])],
    ["topics.0.produce.rateChanges.0.ramp.from", "$defs.produce.properties.rateChanges.items.anyOf.2.properties.ramp.properties.from", (s) => (s.topics[0].produce.rateChanges = [{ ramp: { to: 5, over: "1s" } }])],
    ["topics.0.produce.rateChanges.0.ramp.to", "$defs.produce.properties.rateChanges.items.anyOf.2.properties.ramp.properties.to", (s) => (s.topics[0].produce.rateChanges = [{ ramp: { over: "1s" } }])],
    ["groups.0.instances", "$defs.group.properties.instances"],
    ...["failureProbability", "poisonFraction", "hangFraction"].map(
      (k): [string, string] => [`groups.0.listener.${k}`, `$defs.group.properties.listener.properties.${k}`],
    ),
    ...Object.keys(CONSUMER_CONFIG_DEFAULTS)
      .filter((k) => CONSUMER_CONFIG_RANGES[k as keyof typeof CONSUMER_CONFIG_RANGES] !== "boolean")
      .map((k): [string, string, (s: Json) => void] => [
        `groups.0.config.${k}`,
        `$defs.group.properties.config.properties.${k}${MIB_SETTINGS.has(k as keyof typeof CONSUMER_CONFIG_DEFAULTS) ? ".anyOf.0" : ""}`,
        // consumeThreadMin ≤ consumeThreadMax is a cross-field rule: probe each with the other at its loosest.
        (s) => (s.groups[0].config = k === "consumeThreadMin" ? { consumeThreadMax: 1000 } : k === "consumeThreadMax" ? { consumeThreadMin: 1 } : {}),
      ]),
    ...Object.entries(BROKER_CONFIG_DEFAULTS)
      .filter(([, v]) => typeof v === "number")
      .map(([k]): [string, string] => [`brokers.0.config.${k}`, `$defs.broker.properties.config.properties.${k}`]),
    faultField("scale", "instances", { target: "G1" }),
    faultField("loss", "probability", {}),
    faultField("failureProbability", "probability", { target: "G1" }),
    faultField("offsetIllegal", "nextBeginOffset", { target: "TopicTest@broker-a#0" }, 1),
    faultField("truncate", "offset", { target: "TopicTest@broker-a#0" }, 1),
  ];

  /** A numeric field of a fault kind; `branch` picks the numeric branch of an anyOf. */
  function faultField(kind: string, key: string, rest: Json, branch?: number): [string, string, (s: Json) => void] {
    const index = schemaAt("$defs.fault").anyOf.findIndex((k: Json) => k.properties.kind.const === kind);
    const at = `$defs.fault.anyOf.${index}.properties.${key}${branch === undefined ? "" : `.anyOf.${branch}`}`;
    return [`faults.0.${key}`, at, (s) => (s.faults = [{ kind, at: "1s", ...rest }])];
  }

  for (const [path, schemaPath, prepare] of numeric) {
    it(`${path}: the same verdict at and around the bounds`, () => {
      const p = schemaAt(schemaPath);
      expect(typeof p.minimum, "minimum").toBe("number");
      expect(typeof p.maximum, "maximum").toBe("number");
      const probes = [p.minimum - 1, p.minimum, p.minimum + 0.5, 0, 1, p.maximum, p.maximum + 1, (p.minimum + p.maximum) / 2 + 0.25, "1", null, true];
      for (const value of probes) {
        const s = edited((x) => {
          prepare?.(x);
          setPath(x, path, value);
        });
        const v = verdicts(s);
        expect(v.schema, `${path} = ${JSON.stringify(value)}: schema ${v.schema} vs validator ${v.validator} ${v.errors.join("; ")}`).toBe(v.validator);
      }
    });
  }

  it("durations and sizes: the same string and number forms", () => {
    const durations = ["50ms", " 1.5s ", ".5s", "1.s", "10m", "2h", "200us", "3µs", "0ms", 0, 12.5, "5", "5 sec", "5S", "-1s", "1d", "1e3ms", "", -1, true, null, [1],
      // Compound: units largest first, each once, only the last part with a fraction.
      "1h30m", "5h15m", "3m30s", "1m0.5s", "1h 30m", " 2h 1m 3s 4ms 5us ", "1h.5m", "1ms", "1m1s", "1h2µs", "1h0.5s",
      "30s1m", "1m1m", "1ms1s", "1.5h30m", "1h30", "1h-30m", "1m s", "1hm", "1min", "1h30m ms", "h1"];
    for (const value of durations) {
      const v = verdicts(edited((s) => (s.groups[0].startAt = value)));
      expect(v.schema, `startAt = ${JSON.stringify(value)}`).toBe(v.validator);
    }
    const sizes = ["512B", "1KiB", "1.5MiB", "6GiB", "1TiB", 0, 1024, 1.5, "1KB", "1kib", "10", "-1B", -1, "1 MiB", false];
    for (const value of sizes) {
      const v = verdicts(edited((s) => (s.brokers[0].hotBytes = value)));
      expect(v.schema, `hotBytes = ${JSON.stringify(value)}`).toBe(v.validator);
    }
    // maxMessageSize has the same forms (at least the base scenario's 1 KiB bodies); its range (1 B .. 1 GiB) is a
    // validator-only rule, below.
    for (const value of ["2KiB", "4MiB", "1.5MiB", 1024, 2048, 1.5, "1KB", "-1B", "1 MiB", false]) {
      const v = verdicts(edited((s) => (s.brokers[0].maxMessageSize = value)));
      expect(v.schema, `maxMessageSize = ${JSON.stringify(value)}`).toBe(v.validator);
    }
  });

  it("MiB settings: a number of MiB or a size string, the same verdicts", () => {
    // Numbers are MiB; a string must name a binary unit. Whole-MiB and range checks of strings are the validator's (below).
    const values = ["100MiB", "1GiB", "2048KiB", " 1 MiB ", "100MB", "100", "100mib", "-1MiB", 100, 1024, "x", true];
    for (const key of MIB_SETTINGS) {
      for (const value of values) {
        const v = verdicts(edited((s) => (s.groups[0].config = { [key]: value })));
        expect(v.schema, `${key} = ${JSON.stringify(value)}`).toBe(v.validator);
      }
    }
  });

  it("distributions and other string forms: the same verdicts", () => {
    const consumeTimes = [
      "5ms", 5, { dist: "const", value: "1ms" }, { dist: "uniform", min: 1, max: "2ms" }, { dist: "exponential", mean: "5ms" },
      { dist: "normal", mean: "5ms", sd: "1ms" }, { dist: "lognormal", median: "3ms", p99: "15ms" }, { dist: "pareto", scale: "1ms", shape: 1.5 },
      { dist: "empirical", values: [["1ms", 9], ["50ms", 1]] }, { dist: "gamma", mean: 1 }, { dist: "exponential" }, { mean: "5ms" },
      { dist: "pareto", scale: "1ms", shape: 0 }, { dist: "pareto", scale: "1ms", shape: "2" }, { dist: "empirical", values: [] },
      { dist: "empirical", values: [["1ms"]] }, { dist: "empirical", values: [["1ms", -1]] }, { dist: "normal", mean: "5 ms", sd: 1 },
      [1, 2], "fast",
      { dist: "exponential", mean: "5ms", max: "1s" }, { dist: "normal", mean: "5ms", sd: "1ms", max: 20 },
      { dist: "lognormal", median: "3ms", p99: "15ms", max: "1m" }, { dist: "pareto", scale: "1ms", shape: 0.5, max: "1h" },
      { dist: "exponential", mean: "5ms", max: "soon" }, { dist: "const", value: "1ms", max: "2ms" }, { dist: "empirical", values: [["1ms", 1]], max: 5 },
    ];
    for (const value of consumeTimes) {
      const v = verdicts(edited((s) => (s.groups[0].listener = { consumeTime: value })));
      expect(v.schema, `consumeTime = ${JSON.stringify(value)}`).toBe(v.validator);
    }
    const expressions = ["*", " * ", "TagA", "TagA || TagB", "TagA||TagB", "TagA | TagB", "TagA || ", "Tag A", "*||TagA", "", "  ", 3];
    for (const value of expressions) {
      const v = verdicts(edited((s) => (s.groups[0].subscribe = { TopicTest: value })));
      expect(v.schema, `subscribe = ${JSON.stringify(value)}`).toBe(v.validator);
    }
    const names = ["G1", "a.b-c_d", "", "has space", "%RETRY%G1", "x".repeat(127), "x".repeat(128), "DEFAULT_CONSUMER", 7];
    for (const value of names) {
      const v = verdicts(edited((s) => (s.groups[0].name = value)));
      expect(v.schema, `groups.0.name = ${JSON.stringify(value)}`).toBe(v.validator);
    }
    const levels = ["1s 5s", " 1s  2m 3h 1d ", "1s,5s", "", "1x", "1.5s"];
    for (const value of levels) {
      const v = verdicts(edited((s) => (s.brokers[0].config = { messageDelayLevel: value })));
      expect(v.schema, `messageDelayLevel = ${JSON.stringify(value)}`).toBe(v.validator);
    }
  });
});

describe("scenarios/schema.json: sample scenarios", () => {
  const files = readdirSync(SCENARIO_DIR).filter((f) => f.endsWith(".json") && f !== "schema.json");

  it("every scenario in scenarios/ is valid by both", () => {
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const s = JSON.parse(readFileSync(new URL(f, SCENARIO_DIR), "utf8"));
      expect(verdicts(s), f).toMatchObject({ schema: true, validator: true });
    }
  });

  const valid: [string, (s: Json) => void][] = [
    ["the base scenario", () => {}],
    ["everything spelled out", (s) => {
      Object.assign(s, { $schema: "./schema.json", description: "all", seed: 0, sampleEvery: "500ms", profile: "5.x", faults: [], expect: ["messages.lost == 0"] });
      s.network = { latency: { dist: "uniform", min: "100us", max: "1ms" } };
      s.brokers[0] = { name: "broker-a", hotBytes: "1GiB", maxMessageSize: "8MiB", config: { longPollingEnable: false, retryQueueNums: 0 } };
      s.topics[0].produce = { rate: 5.5, arrival: "uniform", bodyBytes: { dist: "empirical", values: [["1KiB", 3], [4096, 1]] }, tags: { TagA: 1, TagB: 0 }, queueSelect: { weights: [1, 0] }, rateChanges: [{ at: "2s", rate: 0 }, { at: 3000, rate: 7 }], backlog: 10 };
      s.groups[0] = { name: "G1", instances: 3, subscribe: { TopicTest: "TagA || TagB" }, consumeFromWhere: "CONSUME_FROM_TIMESTAMP", consumeTimestampBefore: "1h", config: { pullThresholdForTopic: -1, maxReconsumeTimes: 0, postSubscriptionWhenPull: true }, listener: { consumeTime: 3, failureProbability: 0.1, poisonFraction: 0, hangFraction: 1 }, startAt: "1s" };
    }],
  ];
  valid.push(
    ["faults of every kind", (s) => {
      s.groups[0].instances = 2;
      s.faults = [
        { kind: "consumerStart", at: "1s", target: "G1/*" },
        { kind: "consumerStop", at: "1s", target: ["G1/0", "G1/1"] },
        { kind: "consumerCrash", at: "1s", target: "G1/0", mode: "vanished", restartAfter: "2s" },
        { kind: "scale", at: "2s", target: "G1", instances: 3 },
        { kind: "pause", at: "2s", target: "G1/1", for: "500ms" },
        { kind: "resume", at: "3s", target: "G1/1" },
        { kind: "duplicateClientId", at: "3s", target: "G1/1", sameAs: "G1/0" },
        { kind: "brokerCrash", at: "4s", target: "broker-a", restartAfter: 1000 },
        { kind: "brokerReadOnly", at: "4s", target: "broker-a", for: "1s" },
        { kind: "latency", at: "5s", clients: "*", brokers: ["broker-a"], extra: "5ms", for: "1s" },
        { kind: "latency", at: "5s", clients: ["G1/0"], brokers: "broker-a", latency: { dist: "exponential", mean: "2ms" } },
        { kind: "loss", at: "5s", probability: 0.1 },
        { kind: "partition", at: "6s", clients: "G1/0", for: "1s" },
        { kind: "offsetIllegal", at: "6s", target: "TopicTest@broker-a#1", group: "G1", nextBeginOffset: "max" },
        { kind: "offsetIllegal", at: "6s", target: "TopicTest@broker-a#0", nextBeginOffset: 0 },
        { kind: "truncate", at: "7s", target: "TopicTest@broker-a#0", offset: "max" },
        { kind: "hangMessage", at: "7s", target: "TopicTest@broker-a#0", duration: "forever" },
        { kind: "hangMessage", at: "7s", target: "TopicTest@broker-a#1", duration: "3s" },
        { kind: "consumeTime", at: "8s", target: "G1", consumeTime: "20ms", for: "1s" },
        { kind: "failureProbability", at: "8s", target: "G1", probability: 0.5 },
      ];
    }],
    ["every allocation form", (s) => {
      s.groups = ["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH", "MACHINE_ROOM_NEARBY-AVG", { strategy: "CONSISTENT_HASH", virtualNodes: 0 },
        { strategy: "CONFIG", messageQueueList: [{ topic: "TopicTest", brokerName: "broker-a", queueId: 1 }] },
        { strategy: "MACHINE_ROOM", consumeridcs: ["room1"] }, { strategy: "MACHINE_ROOM_NEARBY", inner: { strategy: "AVG" }, roomSeparator: "@" }]
        .map((allocate, i) => ({ name: `G${i}`, subscribe: { TopicTest: "*" }, allocate }));
    }],
    ["pinned client ids", (s) => (s.groups[0].clientIds = ["10.0.0.1@1", "10.0.0.1@1"])],
    ["rate changes of every form", (s) => (s.topics[0].produce.rateChanges = [
      { at: "1s", rate: 5 }, { burst: { at: "2s", rate: 50, for: "1s" } }, { ramp: { from: 5, to: 20, over: "2s", at: "3s" } }, { ramp: { to: 1, over: 500, at: "1m0.5s" } },
    ])],
    ["a ramp from the start without at or from", (s) => (s.topics[0].produce.rateChanges = [{ ramp: { to: 100, over: "1m30s" } }])],
    ["MiB settings as size strings", (s) => (s.groups[0].config = { pullThresholdSizeForQueue: "512MiB", pullThresholdSizeForTopic: "1GiB" })],
  );
  const invalid: [string, (s: Json) => void][] = [
    ["a fault of an unknown kind", (s) => (s.faults = [{ kind: "brokerDown", at: "1s", target: "broker-a" }])],
    ["a fault without at", (s) => (s.faults = [{ kind: "brokerCrash", target: "broker-a" }])],
    ["a latency fault with both extra and latency", (s) => (s.faults = [{ kind: "latency", at: "1s", extra: "1ms", latency: "2ms" }])],
    ["a latency fault with neither", (s) => (s.faults = [{ kind: "latency", at: "1s" }])],
    ["a loss probability above 1", (s) => (s.faults = [{ kind: "loss", at: "1s", probability: 2 }])],
    ["an instance target without an instance number", (s) => (s.faults = [{ kind: "pause", at: "1s", target: "G1" }])],
    ["a queue target without a queue id", (s) => (s.faults = [{ kind: "truncate", at: "1s", target: "TopicTest@broker-a", offset: 0 }])],
    ["a hang of a bad duration", (s) => (s.faults = [{ kind: "hangMessage", at: "1s", target: "TopicTest@broker-a#0", duration: "always" }])],
    ["an unknown allocation strategy", (s) => (s.groups[0].allocate = "ROUND_ROBIN")],
    ["an allocation option of another strategy", (s) => (s.groups[0].allocate = { strategy: "AVG", virtualNodes: 3 })],
    ["CONFIG without its queue list", (s) => (s.groups[0].allocate = "CONFIG")],
    ["MACHINE_ROOM_NEARBY inside itself", (s) => (s.groups[0].allocate = { strategy: "MACHINE_ROOM_NEARBY", inner: "MACHINE_ROOM_NEARBY-AVG" })],
    ["a negative virtualNodes", (s) => (s.groups[0].allocate = { strategy: "CONSISTENT_HASH", virtualNodes: -1 })],
    ["an empty client id", (s) => (s.groups[0].clientIds = [""])],
    ["not an object", (s) => Object.keys(s).forEach((k) => delete s[k])],
    ["an unknown top-level key", (s) => (s.durationn = "1m")],
    ["no name", (s) => delete s.name],
    ["empty groups", (s) => (s.groups = [])],
    ["no brokers", (s) => delete s.brokers],
    ["a bad profile", (s) => (s.profile = "6.0")],
    ["a negative seed", (s) => (s.seed = -1)],
    ["an unknown consumer config key", (s) => (s.groups[0].config = { pullThreshold: 1 })],
    ["pullBatchSize above 1024", (s) => (s.groups[0].config = { pullBatchSize: 1025 })],
    ["pullThresholdForTopic 0", (s) => (s.groups[0].config = { pullThresholdForTopic: 0 })],
    ["a broker config of the wrong type", (s) => (s.brokers[0].config = { longPollingEnable: "yes" })],
    ["a decimal size unit", (s) => (s.topics[0].produce.bodyBytes = "1KB")],
    ["a duration without a unit", (s) => (s.duration = "30")],
    ["expect not strings", (s) => (s.expect = [1])],
    ["a produce without rate", (s) => delete s.topics[0].produce.rate],
    ["a bad arrival", (s) => (s.topics[0].produce.arrival = "bursty")],
    ["an empty tags object", (s) => (s.topics[0].produce.tags = {})],
    ["a tag with a space", (s) => (s.topics[0].produce.tags = { "Tag A": 1 })],
    ["a subscription that is empty", (s) => (s.groups[0].subscribe = {})],
    ["a probability above 1", (s) => (s.groups[0].listener = { failureProbability: 1.5 })],
    ["a topic listing a broker twice", (s) => (s.topics[0].brokers = ["broker-a", "broker-a"])],
    ["a burst without for", (s) => (s.topics[0].produce.rateChanges = [{ burst: { at: "1s", rate: 5 } }])],
    ["a burst with its at outside", (s) => (s.topics[0].produce.rateChanges = [{ at: "1s", burst: { at: "1s", rate: 5, for: "1s" } }])],
    ["a ramp without to", (s) => (s.topics[0].produce.rateChanges = [{ ramp: { from: 1, over: "1s" } }])],
    ["a ramp and a burst in one entry", (s) => (s.topics[0].produce.rateChanges = [{ ramp: { to: 1, over: "1s" }, burst: { at: "1s", rate: 5, for: "1s" } }])],
    ["a MiB setting with a decimal unit", (s) => (s.groups[0].config = { pullThresholdSizeForQueue: "100MB" })],
    ["a compound duration out of order", (s) => (s.duration = "30s1m")],
  ];
  /**
   * Rules a JSON Schema cannot state (references across the file, relations between values): only
   * the validator rejects these. Listed so the gap is known and stays this small.
   */
  const validatorOnly: [string, (s: Json) => void][] = [
    ["an unknown broker in a topic", (s) => (s.topics[0].brokers = ["broker-z"])],
    ["an unknown topic in a subscription", (s) => (s.groups[0].subscribe = { Nope: "*" })],
    ["two brokers with one name", (s) => s.brokers.push({ name: "broker-a" })],
    ["consumeThreadMin above consumeThreadMax", (s) => (s.groups[0].config = { consumeThreadMin: 30 })],
    ["a zero duration", (s) => (s.duration = "0s")],
    ["too many samples", (s) => Object.assign(s, { duration: "1h", sampleEvery: "1ms" })],
    ["queueSelect weights not one per queue", (s) => (s.topics[0].produce.queueSelect = { weights: [1] })],
    ["rate changes out of order", (s) => (s.topics[0].produce.rateChanges = [{ at: "2s", rate: 1 }, { at: "1s", rate: 2 }])],
    ["a lognormal p99 below its median", (s) => (s.groups[0].listener = { consumeTime: { dist: "lognormal", median: "5ms", p99: "1ms" } })],
    ["all tag weights 0", (s) => (s.topics[0].produce.tags = { TagA: 0 })],
    ["a fault after the end of the run", (s) => (s.faults = [{ kind: "brokerCrash", at: "1h", target: "broker-a" }])],
    ["a fault naming an unknown broker", (s) => (s.faults = [{ kind: "brokerCrash", at: "1s", target: "broker-z" }])],
    ["a fault naming an instance the group never runs", (s) => (s.faults = [{ kind: "consumerStop", at: "1s", target: "G9/0" }])],
    ["fewer pinned client ids than instances", (s) => Object.assign(s.groups[0], { instances: 2, clientIds: ["a@1"] })],
    ["an expectation that does not parse", (s) => (s.expect = ["messages.lost =="])],
    ["a maxMessageSize of 0", (s) => (s.brokers[0].maxMessageSize = 0)],
    ["a maxMessageSize above 1 GiB", (s) => (s.brokers[0].maxMessageSize = "2GiB")],
    ["a body size above the broker's maxMessageSize", (s) => (s.topics[0].produce.bodyBytes = "5MiB")],
    ["a body size with an unbounded tail", (s) => (s.topics[0].produce.bodyBytes = { dist: "lognormal", median: "2KiB", p99: "1MiB" })],
    ["a max that leaves nothing to draw", (s) => (s.topics[0].produce.bodyBytes = { dist: "pareto", scale: "1KiB", shape: 2, max: "512B" })],
    ["a burst overlapping the next rate change", (s) => (s.topics[0].produce.rateChanges = [{ burst: { at: "1s", rate: 5, for: "2s" } }, { at: "2s", rate: 1 }])],
    ["a ramp over 0s", (s) => (s.topics[0].produce.rateChanges = [{ ramp: { to: 5, over: "0s" } }])],
    ["a second ramp without at", (s) => (s.topics[0].produce.rateChanges = [{ at: "1s", rate: 5 }, { ramp: { to: 5, over: "1s" } }])],
    ["a MiB setting that is not a whole number of MiB", (s) => (s.groups[0].config = { pullThresholdSizeForQueue: "1536KiB" })],
    ["a MiB setting out of range as a string", (s) => (s.groups[0].config = { pullThresholdSizeForQueue: "2GiB" })],
  ];

  for (const [what, edit] of valid) {
    it(`valid by both: ${what}`, () => expect(verdicts(edited(edit))).toMatchObject({ schema: true, validator: true }));
  }
  for (const [what, edit] of invalid) {
    it(`invalid by both: ${what}`, () => expect(verdicts(edited(edit))).toMatchObject({ schema: false, validator: false }));
  }
  for (const [what, edit] of validatorOnly) {
    it(`beyond a schema, rejected by the validator only: ${what}`, () => {
      expect(verdicts(edited(edit))).toMatchObject({ schema: true, validator: false });
    });
  }
});
