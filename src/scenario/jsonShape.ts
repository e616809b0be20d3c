// What a scenario may be made of before it is read field by field (issue 15 items 1, 8, 9): JSON values
// only — no BigInt, symbol or function (the API accepts objects, not just parsed text), no
// non-finite number (JSON has none: `1e999` parses to Infinity), and nesting no deeper than a scenario
// needs. Walked without recursion, so a 5 000-level input is refused with one message, not a stack overflow.
import { InputError } from "./errors.ts";

/** Deeper than any scenario (a fault's latency distribution sits at depth 5). */
export const NESTING_MAX = 32;

export function assertJsonShape(raw: unknown): void {
  const stack: { v: unknown; path: string; depth: number }[] = [{ v: raw, path: "", depth: 0 }];
  while (stack.length > 0) {
    const { v, path, depth } = stack.pop()!;
    const where = path === "" ? "(scenario)" : path;
    switch (typeof v) {
      case "number":
        if (!Number.isFinite(v)) throw new InputError(where, `${v} is not a finite number`);
        continue;
      case "string":
      case "boolean":
        continue;
      case "object":
        if (v === null) continue;
        if (depth >= NESTING_MAX) throw new InputError(where, `is nested deeper than ${NESTING_MAX} levels: not a scenario`);
        if (Array.isArray(v)) {
          for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: path === "" ? String(i) : `${path}.${i}`, depth: depth + 1 });
        } else {
          const keys = Object.keys(v);
          for (let i = keys.length - 1; i >= 0; i--) {
            const k = keys[i]!;
            stack.push({ v: (v as Record<string, unknown>)[k], path: path === "" ? k : `${path}.${k}`, depth: depth + 1 });
          }
        }
        continue;
      case "undefined":
        continue; // a key set to undefined is an absent key (as JSON.stringify would drop it)
      default:
        throw new InputError(where, `is a ${typeof v}, not a JSON value`);
    }
  }
}
