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

const DURATION_FORMS =
  'use a number of ms or a string like "200us", "50ms", "1.5s", "10m", "2h", or units combined largest first: "1h30m", "3m30s", "1m0.5s"';
const BYTES_FORMS = 'use a number of bytes or a string like "512B", "1KiB", "100MiB", "6GiB", "1TiB"';

// A decimal number (no sign, no exponent) followed by an optional unit word.
const QUANTITY_RE = /^([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*([A-Za-zµ]*)$/;
// One part of a compound duration ("1h", "30 m", "0.5s"), matched from where the previous part ended.
const DURATION_PART_RE = /\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*([A-Za-zµ]*)/y;
const NEGATIVE_RE = /^-\s*[0-9.]/;
// Units a user may reach for that we refuse; they get an explicit note instead of a bare "no".
const DECIMAL_UNIT_RE = /^(?:[kmgt]i?b?|bytes?)$/i;
/** Duration units from largest to smallest: a compound duration names them in this order, each once. */
const DURATION_UNIT_RANK: Readonly<Record<string, number>> = { h: 0, m: 1, s: 2, ms: 3, us: 4, µs: 4 };

/**
 * Parses a duration: a JSON number of milliseconds (fractions allowed: 0.5 = 500 µs) or a string
 * with a unit (us, µs, ms, s, m, h), or several such parts with the units largest first, each once,
 * as Go's time.ParseDuration writes them: "1h30m", "5h15m", "3m30s", "1m0.5s". Only the last part
 * may have a fraction ("1.5h30m" is refused: it reads like a typo for "1h30m"). Returns whole
 * microseconds, rounded to nearest once, after the parts are summed.
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
  if (NEGATIVE_RE.test(text)) throw new InputError(path, `${describeValue(value)}: a negative duration is not allowed; ${DURATION_FORMS}`);
  const parts = durationParts(text);
  if (parts === null) throw new InputError(path, `${describeValue(value)} is not a duration; ${DURATION_FORMS}`);
  if (parts.length === 1 && parts[0]!.unit === "") {
    throw new InputError(
      path,
      `${describeValue(value)} has no unit; a number inside a string is not accepted, ${DURATION_FORMS}`,
    );
  }
  let us = 0;
  let rankBefore = -1;
  parts.forEach((part, i) => {
    const rank = DURATION_UNIT_RANK[part.unit];
    const factor = US_PER_UNIT[part.unit];
    if (rank === undefined || factor === undefined) {
      if (parts.length === 1) throw new InputError(path, `${describeValue(value)} is not a duration; ${DURATION_FORMS}`);
      const what = part.unit === "" ? `the part "${part.number}" has no unit` : `"${part.unit}" is not a duration unit (us, µs, ms, s, m, h)`;
      throw new InputError(path, `${describeValue(value)} is not a duration: ${what}; ${DURATION_FORMS}`);
    }
    if (rank <= rankBefore) {
      throw new InputError(path, `${describeValue(value)} is not a duration: the units of a compound duration go largest first (h, m, s, ms, us), each at most once; ${DURATION_FORMS}`);
    }
    if (i < parts.length - 1 && part.number.includes(".")) {
      throw new InputError(path, `${describeValue(value)} is not a duration: only the last part may have a fraction ("1h30m", "1m0.5s"); ${DURATION_FORMS}`);
    }
    rankBefore = rank;
    us += Number(part.number) * factor;
  });
  return checkRange(us, value, path, "duration", DURATION_FORMS);
}

/** Splits "1h 30m" into its number–unit parts; null if some text is neither (or there is none). */
function durationParts(text: string): { number: string; unit: string }[] | null {
  const parts: { number: string; unit: string }[] = [];
  DURATION_PART_RE.lastIndex = 0;
  while (DURATION_PART_RE.lastIndex < text.length) {
    const at = DURATION_PART_RE.lastIndex;
    const m = DURATION_PART_RE.exec(text);
    if (m === null || m.index !== at) return null;
    parts.push({ number: m[1]!, unit: m[2]! });
    // Five parts at most (h m s ms us): a 1 MB string of digits and letters is refused after six.
    if (parts.length > 5) return null;
  }
  return parts.length === 0 ? null : parts;
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
  return sizeTextBytes(value, path, BYTES_FORMS);
}

const MIB = 1024 ** 2;
const MIB_FORMS = 'this setting is in MiB: use a number of MiB (e.g. 100) or a string with a unit B, KiB, MiB, GiB or TiB ("100MiB", "1GiB", "512KiB")';

/**
 * A size written for a setting RocketMQ keeps in whole MiB (pullThresholdSizeForQueue,
 * pullThresholdSizeForTopic): "100MiB", "1GiB", "2048KiB". A JSON number there is already MiB and is
 * not for this function. The size must come to a whole number of MiB, because RocketMQ's field is an
 * int of MiB and the scenario's value should be one a user can paste back into a client config.
 * Returns MiB; the setting's range is the caller's to check.
 */
export function parseMiBText(value: unknown, path: string): number {
  const bytes = sizeTextBytes(value, path, MIB_FORMS);
  if (bytes % MIB !== 0) {
    const mib = bytes / MIB;
    const below = Math.floor(mib);
    const near = below === 0 ? '"1MiB"' : `"${below}MiB" or "${below + 1}MiB"`;
    throw new InputError(path, `${describeValue(value)} is ${trimDecimals(mib)} MiB, but this setting is a whole number of MiB (an int in RocketMQ): use ${near}`);
  }
  return bytes / MIB;
}

/** A size string with a binary unit, in bytes; errors end with `forms`. */
function sizeTextBytes(value: unknown, path: string, forms: string): number {
  if (typeof value !== "string") {
    throw new InputError(path, `${describeValue(value)} is not a size; ${forms}`);
  }
  const text = value.trim();
  const match = QUANTITY_RE.exec(text);
  if (match === null) {
    const why = NEGATIVE_RE.test(text) ? "a negative size is not allowed" : "is not a size";
    throw new InputError(path, `${describeValue(value)} ${why}; ${forms}`);
  }
  const unit = match[2]!;
  if (unit === "") {
    throw new InputError(path, `${describeValue(value)} has no unit; a number inside a string is not accepted, ${forms}`);
  }
  const factor = BYTES_PER_UNIT[unit];
  if (factor === undefined) {
    const note = DECIMAL_UNIT_RE.test(unit) ? " (only the 1024-based units B, KiB, MiB, GiB, TiB are accepted)" : "";
    throw new InputError(path, `${describeValue(value)} is not a size${note}; ${forms}`);
  }
  return checkRange(Number(match[1]) * factor, value, path, "size", forms);
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
