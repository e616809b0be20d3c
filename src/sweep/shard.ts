// Sharding a sweep across machines (`--shard i/n`) and merging the shards' results (`rmqsim merge`).
//
// The jobs are the (point, seed) pairs, numbered k = point · seeds + seedIndex. Pair k belongs to
// shard (k mod n) + 1: dealt round-robin, so every shard gets a share of each region of the grid
// (runs at large thresholds are slower; a contiguous split would leave one shard with all of them).
// Merging unions the runs and re-assembles, and assemble depends only on the set of runs, so shards
// 1/n … n/n merged are deep-equal to the sweep run on one machine.
import { assemble, type AssembleRun } from "./assemble.ts";
import { SweepInputError } from "./errors.ts";
import { gridSize } from "./grid.ts";
import type { SweepResult } from "./types.ts";

/** Shard `index` (1-based) of `count`. */
export interface Shard {
  index: number;
  count: number;
}

/** More shards than this is a typo: each shard is a machine (or at least a process). */
export const SHARDS_MAX = 10_000;

/** Parses "i/n" with 1 ≤ i ≤ n ≤ SHARDS_MAX. */
export function parseShard(text: string): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const where = `--shard ${text}`;
  if (!m) throw new SweepInputError(where, "expected i/n, e.g. 2/4 for the second of four shards");
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || count > SHARDS_MAX) throw new SweepInputError(where, `the shard count must be from 1 to ${SHARDS_MAX}, got ${count}`);
  if (index < 1 || index > count) throw new SweepInputError(where, `shards are numbered from 1 to ${count}, got ${index}`);
  return { index, count };
}

export function formatShard(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}

/** The (point, seed index) pairs this shard runs, in k order; every pair when shard is null. */
export function shardJobs(totalPoints: number, seeds: number, shard: Shard | null): { point: number; seedIndex: number }[] {
  const out: { point: number; seedIndex: number }[] = [];
  const first = shard === null ? 0 : shard.index - 1;
  const stride = shard === null ? 1 : shard.count;
  for (let k = first; k < totalPoints * seeds; k += stride) out.push({ point: Math.floor(k / seeds), seedIndex: k % seeds });
  return out;
}

/** The fields every part of one sweep shares; a difference means the parts are of different sweeps. */
const SHARED = ["scenario", "baseSeed", "seeds", "warmupMs", "params", "requires", "objective"] as const;

/**
 * Merges shard results (or any partial results of one sweep) into the result of the whole sweep:
 * recommendation included, shard null, complete only when every (point, seed) pair has a run.
 * Parts of different sweeps, and a pair present in two parts (overlapping shards), are errors.
 */
export function mergeResults(parts: readonly SweepResult[]): SweepResult {
  const first = parts[0];
  if (first === undefined) throw new SweepInputError("merge", "no results to merge");
  for (const part of parts.slice(1)) {
    for (const field of SHARED) {
      if (!sameJson(part[field], first[field])) {
        throw new SweepInputError(
          "merge",
          `${name(part)} has ${field} ${JSON.stringify(part[field])} but ${name(first)} has ${JSON.stringify(first[field])}; merge only the shards of one sweep`,
        );
      }
    }
  }
  const total = gridSize(first.params);
  const owner = new Map<number, SweepResult>();
  const runs: AssembleRun[] = [];
  for (const part of parts) {
    for (const point of part.points) {
      for (const run of point.runs) {
        const seedIndex = run.seed - first.baseSeed;
        if (!Number.isInteger(point.index) || point.index < 0 || point.index >= total || !Number.isInteger(seedIndex) || seedIndex < 0 || seedIndex >= first.seeds) {
          throw new SweepInputError("merge", `${name(part)} has a run (point ${point.index}, seed ${run.seed}) outside the sweep's ${total} points × seeds ${first.baseSeed}…${first.baseSeed + first.seeds - 1}`);
        }
        const k = point.index * first.seeds + seedIndex;
        const other = owner.get(k);
        if (other !== undefined) {
          throw new SweepInputError("merge", `point ${point.index} seed ${run.seed} is in both ${name(other)} and ${name(part)}: the shards overlap (give each shard once)`);
        }
        owner.set(k, part);
        runs.push({ point: point.index, seedIndex, metrics: run.metrics, complete: run.complete });
      }
    }
  }
  return assemble({
    scenario: first.scenario,
    baseSeed: first.baseSeed,
    seeds: first.seeds,
    warmupMs: first.warmupMs,
    params: first.params,
    requires: first.requires,
    objective: first.objective,
    runs,
    shard: null,
    complete: owner.size === total * first.seeds,
  });
}

function name(part: SweepResult): string {
  return part.shard === null ? "a whole-sweep result" : `shard ${part.shard}`;
}

/** Structural equality of JSON-like values; object key order does not matter. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
