// Error messages under hostile input (issue 15 item 8): every field of the shipped scenarios is replaced
// by a wrong-typed value — an object, a list, null, a 1 MB string — or deleted, and every message the
// validator gives must name a field, stay short, and never print `undefined` or `[object Object]`.
// (Issue 15 counted 44 messages that did; they came from reading a missing value as `undefined`.)
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { InputError } from "./errors.ts";
import { normalizeScenario } from "./normalize.ts";

type Json = any; // scenario edits

const SCENARIO_DIR = new URL("../../scenarios/", import.meta.url);
const SHIPPED: [string, Json][] = readdirSync(SCENARIO_DIR)
  .filter((f) => f.endsWith(".json") && f !== "schema.json")
  .sort()
  .map((f) => [f, JSON.parse(readFileSync(new URL(f, SCENARIO_DIR), "utf8"))]);

const MB_STRING = "x".repeat(1_000_000);
const DELETE = Symbol("delete");
const REPLACEMENTS: [string, unknown][] = [
  ["{}", {}],
  ["[]", []],
  ["null", null],
  ["a 1 MB string", MB_STRING],
  ["deleted", DELETE],
];
/** Longest message accepted: the field path, the value (≤ 80 characters) and what would be accepted. */
const MESSAGE_CHARS_MAX = 300;

/** Every key path of a JSON value, parents before children. */
function keyPaths(v: Json, prefix: string[] = [], out: string[][] = []): string[][] {
  if (typeof v !== "object" || v === null) return out;
  for (const k of Object.keys(v)) {
    out.push([...prefix, k]);
    keyPaths(v[k], [...prefix, k], out);
  }
  return out;
}

/**
 * One probe per kind of field: list indexes do not make a new kind, except that each fault kind and each
 * distribution is a kind of its own (they take different keys).
 */
function fieldKind(scenario: Json, path: string[]): string {
  let node: Json = scenario;
  const parts: string[] = [];
  for (const k of path) {
    const parent = node;
    node = node?.[k];
    if (!/^\d+$/.test(k)) parts.push(k);
    else parts.push(`#${typeof parent[k]?.kind === "string" ? parent[k].kind : ""}${typeof parent[k]?.dist === "string" ? parent[k].dist : ""}`);
  }
  return parts.join(".");
}

function edited(scenario: Json, path: string[], value: unknown): Json {
  const copy = structuredClone(scenario);
  let node = copy;
  for (const k of path.slice(0, -1)) node = node[k];
  const last = path[path.length - 1]!;
  if (value !== DELETE) node[last] = value;
  else if (Array.isArray(node)) node.splice(Number(last), 1);
  else delete node[last];
  return copy;
}

describe("validator messages for wrong-typed and missing values, over every field of the shipped scenarios", () => {
  it("name a field, stay under 300 characters, and never say undefined, [object Object] or echo a 1 MB value", () => {
    const seen = new Set<string>();
    const problems: string[] = [];
    let probes = 0;
    for (const [file, scenario] of SHIPPED) {
      for (const path of keyPaths(scenario)) {
        const kind = fieldKind(scenario, path);
        if (seen.has(kind)) continue;
        seen.add(kind);
        for (const [label, value] of REPLACEMENTS) {
          probes++;
          let error: unknown = null;
          try {
            normalizeScenario(edited(scenario, path, value));
          } catch (e) {
            error = e;
          }
          if (error === null) continue; // e.g. an optional field deleted
          const where = `${file} ${path.join(".")} = ${label}`;
          if (!(error instanceof InputError)) {
            problems.push(`${where}: ${String(error)}`);
            continue;
          }
          const m = error.message;
          if (/undefined|\[object Object\]/.test(m)) problems.push(`${where}: ${m}`);
          if (m.length > MESSAGE_CHARS_MAX) problems.push(`${where}: ${m.length} characters: ${m.slice(0, 120)}…`);
          if (error.path === "" || !m.startsWith(`${error.path}: `)) problems.push(`${where}: names no field: ${m}`);
          if (label === "deleted" && /\bnull\b|\bnothing is\b/.test(error.reason)) problems.push(`${where}: a missing value not called missing: ${m}`);
        }
      }
    }
    expect(problems).toEqual([]);
    // The probe reached the fields it is about (a guard against a refactor that makes it vacuous).
    expect(seen.size).toBeGreaterThan(150);
    expect(probes).toBe(seen.size * REPLACEMENTS.length);
  });

  it("a missing required field says missing and what is expected", () => {
    const base = SHIPPED.find(([f]) => f === "default.json")![1];
    const message = (path: string[]) => {
      try {
        normalizeScenario(edited(base, path, DELETE));
      } catch (e) {
        if (e instanceof InputError) return e.message;
        throw e;
      }
      throw new Error(`${path.join(".")}: deleting it was accepted`);
    };
    expect(message(["topics", "0", "produce", "rate"])).toBe("topics.0.produce.rate: missing; expected a number in [0, 10000000]");
    expect(message(["name"])).toBe("name: missing; expected a non-empty string");
    expect(message(["groups", "0", "name"])).toBe("groups.0.name: missing; expected a non-empty string");
  });
});
