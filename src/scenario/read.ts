// Small typed readers for validating JSON objects; every error names the field path.
import { InputError } from "./errors.ts";

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Rejects keys not in `allowed`, suggesting the nearest allowed one. */
export function checkKeys(obj: Record<string, unknown>, allowed: readonly string[], path: string): void {
  for (const k of Object.keys(obj)) {
    if (allowed.includes(k)) continue;
    const guess = nearest(k, allowed);
    const where = path === "" ? k : `${path}.${k}`;
    throw new InputError(where, `unknown key "${k}"${guess ? ` — did you mean "${guess}"?` : ""}; allowed: ${allowed.join(", ")}`);
  }
}

export function readString(obj: Record<string, unknown>, key: string, path: string, allowEmpty = false): string {
  const v = obj[key];
  if (typeof v !== "string" || (!allowEmpty && v === "")) throw new InputError(path, `must be a ${allowEmpty ? "" : "non-empty "}string, got ${show(v)}`);
  return v;
}

export function readNumber(obj: Record<string, unknown>, key: string, path: string, min: number, max: number): number {
  const v = obj[key];
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
  const guess = typeof v === "string" ? nearest(v, values) : undefined;
  throw new InputError(path, `${show(v)} is not one of ${values.map((x) => `"${x}"`).join(", ")}${guess ? ` — did you mean "${guess}"?` : ""}`);
}

export function show(v: unknown): string {
  if (v === undefined) return "nothing";
  const s = JSON.stringify(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/** The allowed word closest to `word` by edit distance, if it is close enough to be a typo. */
export function nearest(word: string, allowed: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const a of allowed) {
    const d = editDistance(word.toLowerCase(), a.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = a;
    }
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
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
