// Nightly fuzz corpora (issue 15 acceptance): `npm run corpus [-- options]`.
//
//   1. Mutation corpus: --cases mutants (default 10 000) of the shipped scenarios from --seed (default 1);
//      each must be rejected by validation naming a field, or simulate 2 s of virtual time with the
//      invariant and conservation checks every 100 ms (src/fuzz/mutate.ts).
//   2. Random runs: --runs random valid scenarios (default 500) with random fault schedules
//      (src/fuzz/randomScenario.ts + faultSchedule.ts), checked every 500 ms to their end.
//
// Prints the counts — rejected / simulated / over budget / findings, by mutation operator — and the
// wall time of each part; exits 1 on any finding, printing the command that reproduces it alone.
// The test suite runs the first 2 000 cases and 200 runs (src/fuzz/corpus.test.ts, randomRuns.test.ts).
//
// Options: --cases N --seed S --from I (first case index) · --runs N --run-from I · --mutants-only ·
// --random-only · --write DIR (also write every JSON-representable mutant to DIR/<index>.json).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { MUTATION_OPERATORS, mutantCase, runMutant, type BaseScenario, type Mutant } from "../src/fuzz/mutate.ts";
import { randomScenarioWithFaults } from "../src/fuzz/randomScenario.ts";
import { simulate } from "../src/run/simulate.ts";

const RANDOM_CHECK_EVERY_US = 500_000;

const { values: opts } = parseArgs({
  options: {
    cases: { type: "string", default: "10000" },
    seed: { type: "string", default: "1" },
    from: { type: "string", default: "0" },
    runs: { type: "string", default: "500" },
    "run-from": { type: "string", default: "0" },
    "mutants-only": { type: "boolean", default: false },
    "random-only": { type: "boolean", default: false },
    write: { type: "string" },
  },
});

function int(name: string, text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0) {
    console.error(`corpus: --${name} must be a whole number ≥ 0, got ${JSON.stringify(text)}`);
    process.exit(2);
  }
  return n;
}

const cases = int("cases", opts.cases), seed = int("seed", opts.seed), from = int("from", opts.from);
const runs = int("runs", opts.runs), runFrom = int("run-from", opts["run-from"]);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
/** An error without its time, scenario, names and numbers, so findings with one cause are listed together. */
const signature = (error: string) =>
  error
    .replace(/ at [\d.]+ s of virtual time \([^)]*\)/, "")
    .replace(/\b(group|instance|on|slot) \S+/g, "$1 …")
    .replace(/\d+(\.\d+)?/g, "N")
    .slice(0, 160);

interface Finding {
  what: string;
  error: string;
  reproduce: string;
}

function mutationCorpus(findings: Finding[]): void {
  const dir = new URL("../scenarios/", import.meta.url);
  const bases: BaseScenario[] = readdirSync(dir)
    .filter((f) => f.endsWith(".json") && f !== "schema.json")
    .sort()
    .map((f) => ({ name: f, json: JSON.parse(readFileSync(new URL(f, dir), "utf8")) as Record<string, unknown> }));
  if (opts.write !== undefined) mkdirSync(opts.write, { recursive: true });
  const kinds = ["rejected", "simulated", "incomplete", "overBudget", "finding"] as const;
  const zero = () => Object.fromEntries(kinds.map((k) => [k, 0])) as Record<(typeof kinds)[number], number>;
  const total = zero();
  const byOp = new Map(MUTATION_OPERATORS.map((op) => [op, zero()]));
  const slowest: { ms: number; m: Mutant }[] = [];
  let written = 0;
  const t0 = performance.now();
  for (let i = from; i < from + cases; i++) {
    const m = mutantCase(bases, seed, i);
    if (opts.write !== undefined) written += writeMutant(opts.write, m) ? 1 : 0;
    const t = performance.now();
    const out = runMutant(m.scenario);
    slowest.push({ ms: performance.now() - t, m });
    if (slowest.length > 5) slowest.sort((a, b) => b.ms - a.ms).pop();
    const kind = out.kind === "simulated" && !out.complete ? "incomplete" : out.kind;
    total[kind]++;
    for (const op of new Set(m.applied.map((a) => a.op))) byOp.get(op)![kind]++;
    if (out.kind === "finding") {
      findings.push({
        what: `mutant ${i} of ${m.base} (${m.applied.map((a) => `${a.op}@${a.path}`).join(", ")}), ${out.stage}`,
        error: out.error,
        reproduce: `npm run corpus -- --mutants-only --seed ${seed} --from ${i} --cases 1`,
      });
    }
  }
  const ms = performance.now() - t0;
  console.log(`mutation corpus: ${cases} cases (seed ${seed}, indexes ${from}–${from + cases - 1}) in ${seconds(ms)}`);
  console.log(`  rejected ${total.rejected} · simulated ${total.simulated} (+ ${total.incomplete} stopped at the event cap) · over budget ${total.overBudget} · findings ${total.finding}`);
  console.log(`  ${"operator".padEnd(16)}${kinds.map((k) => k.padStart(12)).join("")}`);
  for (const [op, c] of byOp) console.log(`  ${op.padEnd(16)}${kinds.map((k) => String(c[k]).padStart(12)).join("")}`);
  console.log(`  slowest: ${slowest.sort((a, b) => b.ms - a.ms).map((s) => `#${s.m.index} ${s.m.base} ${s.ms.toFixed(0)} ms`).join(", ")}`);
  if (opts.write !== undefined) console.log(`  wrote ${written} mutant files to ${opts.write}`);
}

/** Writes the mutant as a scenario file; false when it holds what JSON cannot (BigInt, a cycle…). */
function writeMutant(dir: string, m: Mutant): boolean {
  try {
    writeFileSync(join(dir, `${String(m.index).padStart(6, "0")}.json`), `${JSON.stringify(m.scenario, null, 2)}\n`);
    return true;
  } catch {
    return false;
  }
}

function randomRuns(findings: Finding[]): void {
  let passed = 0, faults = 0, events = 0, virtualUs = 0;
  const slowest: { ms: number; run: number }[] = [];
  const t0 = performance.now();
  for (let run = runFrom; run < runFrom + runs; run++) {
    const scenario = randomScenarioWithFaults(run);
    faults += (scenario.faults as unknown[]).length;
    const t = performance.now();
    let error: string | null = null;
    try {
      const r = simulate(scenario, { checkEveryUs: RANDOM_CHECK_EVERY_US });
      events += r.cluster.sched.eventsRun;
      virtualUs += r.model.durationUs;
      if (!r.summary.complete) error = `incomplete: ${r.summary.stopReason}`;
    } catch (e) {
      error = e instanceof Error ? `${e.constructor.name}: ${e.message}` : String(e);
    }
    slowest.push({ ms: performance.now() - t, run });
    if (slowest.length > 5) slowest.sort((a, b) => b.ms - a.ms).pop();
    if (error === null) passed++;
    else findings.push({ what: `random run ${run}`, error: error.slice(0, 500), reproduce: `npm run corpus -- --random-only --run-from ${run} --runs 1` });
  }
  const ms = performance.now() - t0;
  console.log(`random runs: ${runs} scenarios (runs ${runFrom}–${runFrom + runs - 1}) with ${faults} faults in ${seconds(ms)} (${(ms / Math.max(runs, 1)).toFixed(0)} ms per run)`);
  console.log(`  passed ${passed} · failed ${runs - passed} · ${(virtualUs / 1e6).toFixed(0)} s simulated, ${events} events`);
  console.log(`  slowest: ${slowest.sort((a, b) => b.ms - a.ms).map((s) => `run ${s.run} ${s.ms.toFixed(0)} ms`).join(", ")}`);
}

const findings: Finding[] = [];
const t0 = performance.now();
if (!opts["random-only"]) mutationCorpus(findings);
if (!opts["mutants-only"]) randomRuns(findings);
if (findings.length > 0) {
  const groups = new Map<string, Finding[]>();
  for (const f of findings) groups.set(signature(f.error), [...(groups.get(signature(f.error)) ?? []), f]);
  console.log(`\n${findings.length} findings, ${groups.size} distinct:`);
  for (const [, list] of groups) {
    const f = list[0]!;
    console.log(`- ${list.length}× ${f.error}\n  first: ${f.what}\n  reproduce: ${f.reproduce}`);
  }
}
console.log(`\ntotal ${seconds(performance.now() - t0)}; ${findings.length === 0 ? "no findings" : `${findings.length} findings`}`);
process.exitCode = findings.length === 0 ? 0 : 1;
