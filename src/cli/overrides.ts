// Command-line options that override a scenario's own values (--seed, --duration) or say how to run it
// (--check-every). (--set edits go through src/scenario/overrides.ts.)
import { parseDurationUs } from "../scenario/units.ts";
import { describeValue, InputError } from "../scenario/errors.ts";
import { BadInputError } from "./errors.ts";

/** --seed: a whole number in the scenario's range. */
export function parseSeed(text: string): number {
  const n = /^\s*[0-9]+\s*$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n > 2 ** 32 - 1) {
    throw new BadInputError("--seed", `${describeValue(text)} is not a whole number from 0 to 4294967295`);
  }
  return n;
}

/** --duration: a kernel duration string ("30s", "10m"); returns it validated, as written. */
export function parseDurationOption(text: string): string {
  try {
    if (parseDurationUs(text, "--duration") <= 0) throw new BadInputError("--duration", "must be greater than 0");
  } catch (error) {
    if (error instanceof InputError) throw new BadInputError("--duration", error.reason);
    throw error;
  }
  return text;
}

/**
 * --check-every: how often the invariant and conservation checks run during a run, as a duration of
 * virtual time ("10s"); "0" runs them only at the end. Returns µs.
 */
export function parseCheckEvery(text: string): number {
  try {
    const us = text.trim() === "0" ? 0 : parseDurationUs(text, "--check-every");
    if (us < 0) throw new BadInputError("--check-every", "must be 0 (only at the end) or a duration such as 10s");
    return us;
  } catch (error) {
    if (error instanceof InputError) throw new BadInputError("--check-every", error.reason);
    throw error;
  }
}
