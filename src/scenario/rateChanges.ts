// A topic's produce.rateChanges: steps { at, rate } and two shorthands, expanded here into steps.
//
//   { "at": "5m", "rate": 4000 }                                   from 5m on, 4 000 msg/s
//   { "burst": { "at": "2m", "rate": 18000, "for": "60s" } }       18 000 msg/s from 2m to 3m, then
//                                                                  back to the rate in force before 2m
//   { "ramp": { "from": 1000, "to": 10000, "over": "5m", "at": "1m" } }
//                                                                  linear from 1m to 6m, then 10 000
//
// The producer (src/client/Producer.ts) changes its rate in steps only, so a ramp becomes steps of
// RAMP_STEP_US (1 s) — a longer ramp uses over / RAMP_STEPS_MAX instead, so no ramp makes more than
// 1 000 steps — each at the rate of the straight line at the middle of its step. The steps then
// produce, on average, exactly the messages the straight line would: (from + to) / 2 × over.
// A ramp's "at" defaults to 0 (the start of the run) and its "from" to the rate in force at "at".
//
// Entries come in time order and do not overlap. The next entry may start exactly where a burst or a
// ramp ends: it then takes over from there (its first step replaces the burst's return step).
import { describeValue, InputError } from "./errors.ts";
import { checkKeys, isRecord, readNumber } from "./read.ts";
import { formatDurationUs, parseDurationUs } from "./units.ts";

export interface RateStep {
  atUs: number;
  rate: number;
}

/** Step length of an expanded ramp, µs. */
export const RAMP_STEP_US = 1_000_000;
/** Most steps one ramp expands to. */
export const RAMP_STEPS_MAX = 1000;
/** Most steps one topic's rate changes expand to: a bound on the memory a short file can ask for. */
export const RATE_STEPS_MAX = 100_000;
/** Producer rates, msg/s for the whole topic (as produce.rate). */
const RATE_MAX = 10_000_000;

const ENTRY_FORMS = 'a rate change is { "at", "rate" }, { "burst": { "at", "rate", "for" } } or { "ramp": { "from", "to", "over", "at" } }';

/** Where the previous entry ends and what to call it in messages. */
interface Previous {
  endUs: number;
  /** A burst or ramp: the next entry may start exactly at its end. */
  closes: boolean;
  what: string;
}

interface Step extends RateStep {
  /** The end of a burst or ramp: a later entry starting at the same time replaces it. */
  closing: boolean;
}

/** Expands `raw` (the rateChanges list) into the producer's steps; `rate` is produce.rate, in force at 0. */
export function normalizeRateChanges(raw: unknown, path: string, rate: number): RateStep[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw new InputError(path, `must be a list; ${ENTRY_FORMS}`);
  const steps: Step[] = [];
  let previous: Previous | null = null;
  raw.forEach((c, i) => {
    const p = `${path}.${i}`;
    if (!isRecord(c)) throw new InputError(p, `${describeValue(c)} is not an object; ${ENTRY_FORMS}`);
    checkKeys(c, ["at", "rate", "burst", "ramp"], p);
    const form = "burst" in c ? "burst" : "ramp" in c ? "ramp" : "step";
    if (form !== "step" && Object.keys(c).length > 1) {
      const others = Object.keys(c).filter((k) => k !== form).map((k) => `"${k}"`).join(", ");
      throw new InputError(p, `a ${form} entry holds only "${form}" (its fields go inside it), but this one also has ${others}; ${ENTRY_FORMS}`);
    }
    const body = form === "step" ? c : c[form];
    const bp = form === "step" ? p : `${p}.${form}`;
    if (!isRecord(body)) throw new InputError(bp, `must be an object; ${ENTRY_FORMS}`);
    checkKeys(body, form === "step" ? ["at", "rate"] : form === "burst" ? ["at", "rate", "for"] : ["from", "to", "over", "at"], bp);
    const startUs = form === "ramp" && body.at === undefined ? 0 : parseDurationUs(body.at, `${bp}.at`);
    if (previous !== null) {
      if (form === "ramp" && body.at === undefined) throw new InputError(`${bp}.at`, `is missing: without "at" a ramp starts at 0, which only the first rate change may`);
      checkOrder(startUs, previous, `${bp}.at`);
    }
    // The rate in force just before this entry: the last step's (a closing step at the same time is the
    // rate the previous burst returns to, or the ramp's end); it is replaced by this entry's first step.
    const last = steps[steps.length - 1];
    const rateBefore = last === undefined ? rate : last.rate;
    if (last !== undefined && last.closing && last.atUs === startUs) steps.pop();
    if (form === "step") {
      steps.push({ atUs: startUs, rate: readNumber(body, "rate", `${p}.rate`, 0, RATE_MAX), closing: false });
      previous = { endUs: startUs, closes: false, what: `rateChanges.${i}` };
    } else if (form === "burst") {
      const burstRate = readNumber(body, "rate", `${bp}.rate`, 0, RATE_MAX);
      const forUs = positiveDuration(body.for, `${bp}.for`);
      steps.push({ atUs: startUs, rate: burstRate, closing: false }, { atUs: startUs + forUs, rate: rateBefore, closing: true });
      previous = { endUs: startUs + forUs, closes: true, what: `the burst of rateChanges.${i}` };
    } else {
      const from = body.from === undefined ? rateBefore : readNumber(body, "from", `${bp}.from`, 0, RATE_MAX);
      const to = readNumber(body, "to", `${bp}.to`, 0, RATE_MAX);
      const overUs = positiveDuration(body.over, `${bp}.over`);
      // Checked before the steps are made: a short file of long ramps must not allocate first.
      if (steps.length + rampStepCount(overUs) + 1 > RATE_STEPS_MAX) throw tooManySteps(p);
      for (const s of rampSteps(startUs, from, to, overUs)) steps.push({ atUs: s.atUs, rate: s.rate, closing: false });
      steps.push({ atUs: startUs + overUs, rate: to, closing: true });
      previous = { endUs: startUs + overUs, closes: true, what: `the ramp of rateChanges.${i}` };
    }
    if (steps.length > RATE_STEPS_MAX) throw tooManySteps(p);
  });
  return steps.map(({ atUs, rate: r }) => ({ atUs, rate: r }));
}

/**
 * The steps of a linear ramp from `from` (at `startUs`) to `to` (at startUs + overUs), the final `to`
 * step excluded: n = ceil(over / 1 s) steps, at most RAMP_STEPS_MAX, step k from startUs + round(k ×
 * over / n) at the line's value at the step's middle, from + (to − from) × (k + ½) / n.
 */
export function rampSteps(startUs: number, from: number, to: number, overUs: number): RateStep[] {
  const n = rampStepCount(overUs);
  return Array.from({ length: n }, (_, k) => ({
    atUs: startUs + Math.round((k * overUs) / n),
    rate: from + ((to - from) * (2 * k + 1)) / (2 * n),
  }));
}

function tooManySteps(path: string): InputError {
  return new InputError(path, `the rate changes expand to more than ${RATE_STEPS_MAX} steps (a ramp makes up to ${RAMP_STEPS_MAX} + 1, a burst 2); use fewer ramps`);
}

function rampStepCount(overUs: number): number {
  return Math.min(RAMP_STEPS_MAX, Math.max(1, Math.ceil(overUs / RAMP_STEP_US)));
}

function checkOrder(startUs: number, previous: Previous, path: string): void {
  if (startUs > previous.endUs || (previous.closes && startUs === previous.endUs)) return;
  const need = previous.closes
    ? `at or after ${formatDurationUs(previous.endUs)}, where the previous rate change (${previous.what}) ends`
    : `later than the previous rate change (${previous.what}, at ${formatDurationUs(previous.endUs)})`;
  throw new InputError(path, `${formatDurationUs(startUs)} must be ${need}: rate changes go in time order and do not overlap`);
}

function positiveDuration(value: unknown, path: string): number {
  const us = parseDurationUs(value, path);
  if (us <= 0) throw new InputError(path, "must be greater than 0");
  return us;
}
