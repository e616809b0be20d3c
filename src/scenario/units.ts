// Durations and sizes as users write them, converted to the kernel's integers (µs and bytes).
//
// Scenario files are hand-written, so every rejection names the bad text and lists the forms that
// would have worked. A JSON number for a duration means milliseconds because that is RocketMQ's
// own unit for every timing option (pullInterval, consumeTimeout, ...).

import { describeValue, InputError, missing } from "./errors.ts";

/** Largest duration or size we accept: keeps sums of a few of them safe integers. */
export const UNIT_VALUE_MAX = 2 ** 52;

const US_PER_UNIT: Readonly<Record<string, number>> = {
  us: 1,
  µs: 1,
  ms: 1_000,
  s: 1_000_000,
  m: 60_000_000,
  h: 3_600_000_000,
};

const BYTES_PER_UNIT: Readonly<Record<string, number>> = {
  B: 1,
  KiB: 1024,
  MiB: 1024 ** 2,
  GiB: 1024 ** 3,
  TiB: 1024 ** 4,
};

const DURATION_FORMS = 'use a number of ms or a string like "200us", "50ms", "1.5s", "10m", "2h"';
const BYTES_FORMS = 'use a number of bytes or a string like "512B", "1KiB", "100MiB", "6GiB", "1TiB"';

// A decimal number (no sign, no exponent) followed by an optional unit word.
const QUANTITY_RE = /^([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*([A-Za-zµ]*)$/;
const NEGATIVE_RE = /^-\s*[0-9.]/;
// Units a user may reach for that we refuse; they get an explicit note instead of a bare "no".
const DECIMAL_UNIT_RE = /^(?:[kmgt]i?b?|bytes?)$/i;

/**
 * Parses a duration: a JSON number of milliseconds (fractions allowed: 0.5 = 500 µs) or a string
 * with a unit (us, µs, ms, s, m, h). Returns whole microseconds, rounded to nearest.
 */
export function parseDurationUs(value: unknown, path: string): number {
  if (value === undefined) throw new InputError(path, missing(`a duration; ${DURATION_FORMS}`));
  if (typeof value === "number") {
    return checkRange(value * 1_000, value, path, "duration", DURATION_FORMS);
  }
  if (typeof value !== "string") {
    throw new InputError(path, `${describeValue(value)} is not a duration; ${DURATION_FORMS}`);
  }
  const text = value.trim();
  const match = QUANTITY_RE.exec(text);
  if (match === null) {
    const why = NEGATIVE_RE.test(text) ? "a negative duration is not allowed" : "is not a duration";
    throw new InputError(path, `${describeValue(value)} ${why}; ${DURATION_FORMS}`);
  }
  const unit = match[2]!;
  if (unit === "") {
    throw new InputError(
      path,
      `${describeValue(value)} has no unit; a number inside a string is not accepted, ${DURATION_FORMS}`,
    );
  }
  const factor = US_PER_UNIT[unit];
  if (factor === undefined) {
    throw new InputError(path, `${describeValue(value)} is not a duration; ${DURATION_FORMS}`);
  }
  return checkRange(Number(match[1]) * factor, value, path, "duration", DURATION_FORMS);
}

/**
 * Parses a size: a JSON number of bytes (a non-negative integer) or a string with a binary unit
 * (B, KiB, MiB, GiB, TiB). Decimal units (KB, MB, ...) are refused rather than guessed, because
 * RocketMQ's own limits are powers of two and a silent 2.4 % error would hide in results.
 */
export function parseBytes(value: unknown, path: string): number {
  if (value === undefined) throw new InputError(path, missing(`a size; ${BYTES_FORMS}`));
  if (typeof value === "number") {
    if (!Number.isInteger(value)) {
      throw new InputError(path, `${describeValue(value)} is not a whole number of bytes; ${BYTES_FORMS}`);
    }
    return checkRange(value, value, path, "size", BYTES_FORMS);
  }
  if (typeof value !== "string") {
    throw new InputError(path, `${describeValue(value)} is not a size; ${BYTES_FORMS}`);
  }
  const text = value.trim();
  const match = QUANTITY_RE.exec(text);
  if (match === null) {
    const why = NEGATIVE_RE.test(text) ? "a negative size is not allowed" : "is not a size";
    throw new InputError(path, `${describeValue(value)} ${why}; ${BYTES_FORMS}`);
  }
  const unit = match[2]!;
  if (unit === "") {
    throw new InputError(path, `${describeValue(value)} has no unit; a number inside a string is not accepted, ${BYTES_FORMS}`);
  }
  const factor = BYTES_PER_UNIT[unit];
  if (factor === undefined) {
    const note = DECIMAL_UNIT_RE.test(unit) ? " (only the 1024-based units B, KiB, MiB, GiB, TiB are accepted)" : "";
    throw new InputError(path, `${describeValue(value)} is not a size${note}; ${BYTES_FORMS}`);
  }
  return checkRange(Number(match[1]) * factor, value, path, "size", BYTES_FORMS);
}

function checkRange(raw: number, value: unknown, path: string, what: string, forms: string): number {
  if (!Number.isFinite(raw)) throw new InputError(path, `${describeValue(value)} is not a finite ${what}; ${forms}`);
  if (raw < 0) throw new InputError(path, `${describeValue(value)}: a negative ${what} is not allowed; ${forms}`);
  const rounded = Math.round(raw);
  if (rounded > UNIT_VALUE_MAX) {
    throw new InputError(path, `${describeValue(value)} is too large; the ${what} limit is 2^52 ${what === "size" ? "bytes" : "µs"}`);
  }
  return rounded;
}

const DURATION_STEPS: readonly (readonly [number, string])[] = [
  [3_600_000_000, "h"],
  [60_000_000, "m"],
  [1_000_000, "s"],
  [1_000, "ms"],
];

/** Compact human text for a duration: "1.5s", "250ms", "800us", "10m", "2h". Round-trips through parseDurationUs up to 3 decimals. */
export function formatDurationUs(us: number): string {
  if (!Number.isFinite(us)) return String(us);
  const sign = us < 0 ? "-" : "";
  const magnitude = Math.abs(us);
  for (const [size, unit] of DURATION_STEPS) {
    if (magnitude >= size) return `${sign}${trimDecimals(magnitude / size)}${unit}`;
  }
  return `${sign}${trimDecimals(magnitude)}us`;
}

const BYTE_STEPS: readonly (readonly [number, string])[] = [
  [1024 ** 4, "TiB"],
  [1024 ** 3, "GiB"],
  [1024 ** 2, "MiB"],
  [1024, "KiB"],
];

/** Human text for a size with one decimal above 1 KiB: "12 B", "1.0 KiB", "101.0 MiB". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return String(bytes);
  const sign = bytes < 0 ? "-" : "";
  const magnitude = Math.abs(bytes);
  for (const [size, unit] of BYTE_STEPS) {
    if (magnitude >= size) return `${sign}${(magnitude / size).toFixed(1)} ${unit}`;
  }
  return `${sign}${trimDecimals(magnitude)} B`;
}

function trimDecimals(x: number): string {
  return String(Number(x.toFixed(3)));
}
