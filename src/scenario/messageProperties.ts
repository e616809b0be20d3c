// User properties a topic's producers attach to every message (Message#putUserProperty), which SQL92
// subscriptions select on (spec §13.2's commit-log-level filter). A scenario gives each property a
// distribution: a number distribution (`{ "dist": "uniform", "min": 0, "max": 10 }`, or a constant), or
// string values with weights (`{ "values": { "eu": 0.3, "us": 0.7 } }`).
//
// Values are never stored: a message's value is derived when asked for from a hash of its identity (the
// original message's queue and offset) and the property's index, through the distribution's inverse
// CDF — the same value on every read, on every broker node and in every retry copy (which carries the
// original's properties), and memory that does not grow with the messages.
import { hashUniform } from "../sim/streams.ts";
import type { Dist } from "./distKinds.ts";
import { compileDist } from "./distributions.ts";
import { describeValue, InputError } from "./errors.ts";
import { isRecord, readNumber } from "./read.ts";

export type MessagePropertyModel =
  | { name: string; kind: "number"; dist: Dist }
  | { name: string; kind: "string"; values: string[]; /** Cumulative weights, the last 1. */ cum: number[] };

/** Most properties a topic may declare, and most values one string property may list. */
export const PROPERTIES_MAX = 32;
export const PROPERTY_VALUES_MAX = 1000;
/** Property names usable as SQL92 identifiers (RocketMQ's grammar: a letter, _ or $, then those, digits or "."). */
const PROPERTY_NAME_RE = /^[A-Za-z_$][A-Za-z0-9_$.]{0,63}$/;

/** `produce.properties`: name → distribution. */
export function normalizeProperties(raw: unknown, path: string): MessagePropertyModel[] {
  if (!isRecord(raw) || Object.keys(raw).length === 0) {
    throw new InputError(path, `must map property names to distributions, e.g. { "a": { "dist": "uniform", "min": 0, "max": 10 }, "region": { "values": { "eu": 0.3, "us": 0.7 } } }`);
  }
  const names = Object.keys(raw);
  if (names.length > PROPERTIES_MAX) throw new InputError(path, `declares ${names.length} properties; at most ${PROPERTIES_MAX} are accepted`);
  return names.map((name) => {
    const p = `${path}.${name}`;
    if (!PROPERTY_NAME_RE.test(name)) {
      throw new InputError(p, `property name ${describeValue(name)} must start with a letter, _ or $ and continue with letters, digits, _, $ or "." (at most 64 characters)`);
    }
    const spec = raw[name];
    if (isRecord(spec) && spec.values !== undefined) return { name, kind: "string" as const, ...normalizeValues(spec, p) };
    return { name, kind: "number" as const, dist: compileDist(spec, "count", p) };
  });
}

function normalizeValues(spec: Record<string, unknown>, path: string): { values: string[]; cum: number[] } {
  const extra = Object.keys(spec).filter((k) => k !== "values");
  if (extra.length > 0) throw new InputError(`${path}.${extra[0]}`, `unknown key; a string property is { "values": { "<value>": <weight>, … } }`);
  const raw = spec.values;
  if (!isRecord(raw) || Object.keys(raw).length === 0) {
    throw new InputError(`${path}.values`, `must map each value to a weight, e.g. { "eu": 0.3, "us": 0.7 }`);
  }
  const values = Object.keys(raw);
  if (values.length > PROPERTY_VALUES_MAX) throw new InputError(`${path}.values`, `lists ${values.length} values; at most ${PROPERTY_VALUES_MAX} are accepted`);
  const weights = values.map((v) => readNumber(raw, v, `${path}.values.${v}`, 0, 1e9));
  const total = weights.reduce((a, b) => a + b, 0);
  if (total === 0) throw new InputError(`${path}.values`, "at least one weight must be above 0");
  let acc = 0;
  const cum = weights.map((w) => (acc += w / total));
  cum[cum.length - 1] = 1;
  return { values, cum };
}

/** The part of a message key (QueueStore's messageKey) that names the original: its queue and offset. */
export function propertyKey(originKey: number): number {
  return originKey % 281474976710656; // the generation (2^48 and up) is left out
}

/** Stream tag of property draws in hashUniform's last argument (the listener's draws use 0 to 3). */
const PROPERTY_DRAW = 17;

/**
 * Property `index` (of the topic's list) of the message whose propertyKey is `key`, under run seed `seed`.
 * Allocation-free: a number, or one of the property's value strings.
 */
export function propertyValue(p: MessagePropertyModel, index: number, seed: number, key: number): number | string {
  const u = hashUniform(seed, key, index, PROPERTY_DRAW);
  if (p.kind === "number") return p.dist.quantile(u);
  const cum = p.cum;
  for (let i = 0; i < cum.length; i++) if (u < cum[i]!) return p.values[i]!;
  return p.values[p.values.length - 1]!;
}
