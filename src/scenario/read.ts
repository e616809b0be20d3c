// Small typed readers for validating JSON objects; every error names the field path.
import { describeValue, InputError, listChoices, missing } from "./errors.ts";

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** An unknown key: the message lists the first allowed keys; `allowed` holds them all (for tools and tests). */
export class UnknownKeyError extends InputError {
  constructor(
    path: string,
    message: string,
    readonly allowed: readonly string[],
  ) {
    super(path, message);
  }
}

/** Rejects keys not in `allowed`, suggesting the nearest allowed one. */
export function checkKeys(obj: Record<string, unknown>, allowed: readonly string[], path: string): void {
  for (const k of Object.keys(obj)) {
    if (allowed.includes(k)) continue;
    const guess = nearest(k, allowed);
    const where = path === "" ? k : `${path}.${k}`;
    throw new UnknownKeyError(where, `unknown key ${describeValue(k)}${guess ? ` — did you mean "${guess}"?` : ""}; allowed: ${listChoices(allowed)}`, allowed);
  }
}

export function readString(obj: Record<string, unknown>, key: string, path: string, allowEmpty = false): string {
  const v = obj[key];
  if (v === undefined) throw new InputError(path, missing(`a ${allowEmpty ? "" : "non-empty "}string`));
  if (typeof v !== "string" || (!allowEmpty && v === "")) throw new InputError(path, `must be a ${allowEmpty ? "" : "non-empty "}string, got ${show(v)}`);
  return v;
}

export function readNumber(obj: Record<string, unknown>, key: string, path: string, min: number, max: number): number {
  const v = obj[key];
  if (v === undefined) throw new InputError(path, missing(`a number in [${min}, ${max}]`));
  if (typeof v !== "number" || !Number.isFinite(v)) throw new InputError(path, `must be a number in [${min}, ${max}], got ${show(v)}`);
  if (v < min || v > max) throw new InputError(path, `${v} is out of range [${min}, ${max}]`);
  return v;
}

export function readInt(obj: Record<string, unknown>, key: string, path: string, min: number, max: number): number {
  const v = readNumber(obj, key, path, min, max);
  if (!Number.isInteger(v)) throw new InputError(path, `must be a whole number in [${min}, ${max}], got ${v}`);
  return v;
}

export function readEnum<T extends string>(obj: Record<string, unknown>, key: string, path: string, values: readonly T[]): T {
  const v = obj[key];
  if (typeof v === "string" && (values as readonly string[]).includes(v)) return v as T;
  if (v === undefined) throw new InputError(path, missing(`one of ${listChoices(values, 120, true)}`));
  const guess = typeof v === "string" ? nearest(v, values) : undefined;
  throw new InputError(path, `${show(v)} is not one of ${listChoices(values, 120, true)}${guess ? ` — did you mean "${guess}"?` : ""}`);
}

/** A value for a message (describeValue: bounded, never "undefined"). */
export const show = describeValue;

/** The allowed word closest to `word` by edit distance, if it is close enough to be a typo. */
export function nearest(word: string, allowed: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  const close = Math.max(2, Math.floor(word.length / 3));
  for (const a of allowed) {
    // The distance is at least the difference in length: skip the quadratic work for a word (a 1 MB
    // string) that cannot be a typo of this one.
    if (Math.abs(word.length - a.length) > close) continue;
    const d = editDistance(word.toLowerCase(), a.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = a;
    }
  }
  return best !== undefined && bestD <= close ? best : undefined;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}
