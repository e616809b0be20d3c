// Overrides of a raw scenario, `path=value` (the CLI's --set, a sweep's grid points). Pure functions
// on the parsed JSON, through immer so the input is never changed; the result is validated afterwards
// by normalizeScenario like any scenario file. Errors are InputErrors located at the --set at fault.
import { Immer, type Draft } from "immer";
import { describeValue, InputError } from "./errors.ts";
import { NESTING_MAX } from "./jsonShape.ts";

// Without auto-freezing, immer leaves the parts of the scenario no --set touches alone; freezing walks
// them all, recursively, and a 5 000-level file (which validation refuses next, naming the file) would
// overflow the stack first.
const { produce } = new Immer({ autoFreeze: false });

export interface SetOverride {
  /** The dotted path as written, for messages. */
  path: string;
  keys: string[];
  value: unknown;
}

/** Parses `path=value`; the value is JSON if it parses as JSON, else the text itself. */
export function parseSet(arg: string): SetOverride {
  const eq = arg.indexOf("=");
  if (eq < 0) throw new InputError(`--set ${arg}`, 'expected path=value, e.g. groups.0.config.pullThresholdForQueue=200');
  const path = arg.slice(0, eq).trim();
  const keys = path.split(".");
  if (path === "" || keys.some((k) => k === "" || k === "__proto__")) {
    throw new InputError(`--set ${arg}`, "the path must be dot-separated keys and list indexes, e.g. topics.0.produce.rate");
  }
  const text = arg.slice(eq + 1);
  let value: unknown = text;
  try {
    value = JSON.parse(text);
  } catch {
    // Not JSON: keep the text, so `duration=30s` needs no inner quotes.
  }
  checkValue(value, text, path);
  return { path, keys, value };
}

/**
 * Applies the overrides in order. Every step but the last must exist and be an object or a list;
 * list indexes must be in range. The last key may be new in an object (the validator then judges it).
 */
export function applySets(raw: unknown, sets: readonly SetOverride[]): unknown {
  if (sets.length === 0) return raw;
  if (!isContainer(raw)) throw new InputError(`--set ${sets[0]!.path}`, "the scenario is not a JSON object");
  return produce(raw, (draft: Draft<Container>) => {
    for (const set of sets) {
      let node: unknown = draft;
      set.keys.forEach((key, i) => {
        const here = set.keys.slice(0, i + 1).join(".");
        const last = i === set.keys.length - 1;
        if (!isContainer(node)) {
          throw new InputError(`--set ${set.path}`, `${set.keys.slice(0, i).join(".")} is ${kindOf(node)}, not an object or a list`);
        }
        if (Array.isArray(node)) {
          const index = /^(0|[1-9][0-9]*)$/.test(key) ? Number(key) : NaN;
          if (!(index < node.length)) {
            const where = set.keys.slice(0, i).join(".");
            throw new InputError(`--set ${set.path}`, `${here}: no such entry; ${where} is a list of ${node.length}, indexes 0 to ${node.length - 1}`);
          }
          if (last) node[index] = set.value;
          else node = node[index];
          return;
        }
        if (last) {
          node[key] = set.value;
          return;
        }
        // A missing object on the way is created (e.g. groups.0.config when the group has none yet):
        // the scenario is validated again afterwards, so a misspelt key is still rejected by name.
        if (!Object.hasOwn(node, key)) node[key] = {};
        node = node[key];
      });
    }
  });
}

/**
 * A --set value must be one a scenario can hold. JSON.parse reads 1e999 as Infinity (which a later
 * JSON.stringify writes as null): say so here, at the --set. And a value nested deeper than any scenario
 * is refused before immer walks it recursively (5 000 levels overflow the stack). A loop, not recursion.
 */
function checkValue(value: unknown, text: string, path: string): void {
  const stack: { v: unknown; depth: number }[] = [{ v: value, depth: 0 }];
  while (stack.length > 0) {
    const { v, depth } = stack.pop()!;
    if (typeof v === "number" && !Number.isFinite(v)) {
      const what = typeof value === "number" ? describeValue(text.trim()) : "the value holds a number that";
      throw new InputError(`--set ${path}`, `${what} is not a finite number (JSON numbers end at ±1.8e308)`);
    }
    if (typeof v !== "object" || v === null) continue;
    if (depth >= NESTING_MAX) throw new InputError(`--set ${path}`, `the value is nested deeper than ${NESTING_MAX} levels: no scenario field is`);
    for (const x of Object.values(v)) stack.push({ v: x, depth: depth + 1 }); // no spread: a list may be huge
  }
}

type Container = Record<string, unknown> | unknown[];

function isContainer(x: unknown): x is Container {
  return typeof x === "object" && x !== null;
}

function kindOf(x: unknown): string {
  if (x === undefined) return "missing";
  if (x === null) return "null";
  return `a ${typeof x} (${describeValue(x)})`;
}
