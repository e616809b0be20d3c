// `rmqsim compare <a> <b>`: compares two reports' summaries within a tolerance.
import { resolve, join } from "node:path";
import { compareSummaries, formatDrift, parseTolerance, type Tolerance } from "../checks/baseline.ts";
import type { CliEnv } from "./env.ts";
import { BadInputError, EXIT } from "./errors.ts";
import { readJsonFile } from "./readJson.ts";

export interface CompareOptions {
  tolerance: string;
  toleranceFor: string[];
}

export async function compareCommand(a: string, b: string, options: CompareOptions, env: CliEnv): Promise<number> {
  const { tolerance, overrides } = toleranceOptions(options.tolerance, options.toleranceFor);
  const base = await readSummary(a, env);
  const current = await readSummary(b, env);
  const drifts = compareSummaries(base, current, { tolerance, overrides });
  env.stdout.write(`${formatDrift(drifts)}\n`);
  return drifts.length === 0 ? EXIT.ok : EXIT.expectationsFailed;
}

/** A report directory's summary.json, or a summary file itself. */
async function readSummary(target: string, env: CliEnv): Promise<unknown> {
  const path = resolve(env.cwd, target);
  const kind = await env.fs.kind(path);
  if (kind === "missing") throw new BadInputError(target, "no such file or directory");
  if (kind === "dir") return readJsonFile(env.fs, join(path, "summary.json"), join(target, "summary.json"));
  return readJsonFile(env.fs, path, target);
}

/** --tolerance and repeated --tolerance-for path=t, parsed; shared by check and compare. */
export function toleranceOptions(text: string, perKey: readonly string[]): { tolerance: Tolerance; overrides: Record<string, Tolerance> } {
  const tol = (t: string, where: string): Tolerance => {
    try {
      return parseTolerance(t);
    } catch (error) {
      throw new BadInputError(where, (error as Error).message);
    }
  };
  const overrides: Record<string, Tolerance> = {};
  for (const t of perKey) {
    const i = t.indexOf("=");
    if (i <= 0) throw new BadInputError("--tolerance-for", `"${t}" must look like latency.endToEnd.p99Ms=10%`);
    overrides[t.slice(0, i)] = tol(t.slice(i + 1), "--tolerance-for");
  }
  return { tolerance: tol(text, "--tolerance"), overrides };
}
