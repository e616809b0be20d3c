// `rmqsim explain <scenario> [--queue Topic@broker#id] [--group G] [--at <time>] [--window <d>]
// [--seed n] [--duration d] [--top n] [--json]`: re-runs the scenario and says why its queues stopped
// or slowed. Read the file → explain (pure) → print; the human text and --json come from the same
// Explanation. The run is in-process: capture needs the trace, which stays on the simulating thread.
import { resolve } from "node:path";
import { explain, ExplainInputError } from "../explain/explain.ts";
import { renderExplanation } from "../explain/format.ts";
import type { ExplainOptions } from "../explain/types.ts";
import { InputError } from "../scenario/errors.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import { parseDurationUs } from "../scenario/units.ts";
import type { CliEnv } from "./env.ts";
import { BadInputError, EXIT, inFile } from "./errors.ts";
import { parseSeed } from "./overrides.ts";
import { readJsonFile } from "./readJson.ts";

/** The command line as Commander hands it over: every value still a string. */
export interface ExplainArgs {
  scenario: string;
  queue?: string;
  group?: string;
  at?: string;
  window?: string;
  seed?: string;
  duration?: string;
  top?: string;
  json?: boolean;
}

/** Largest --top accepted: an account of more queues than this is no longer an explanation. */
export const TOP_MAX = 1000;

/** Checks and converts the options; every failure names its option (exit 2). */
export function parseExplainArgs(args: ExplainArgs): ExplainOptions {
  const options: ExplainOptions = {};
  if (args.seed !== undefined) options.seed = parseSeed(args.seed);
  if (args.duration !== undefined) options.durationUs = positiveDuration("--duration", args.duration);
  if (args.at !== undefined) options.atUs = duration("--at", args.at);
  if (args.window !== undefined) options.windowUs = positiveDuration("--window", args.window);
  if (args.top !== undefined) {
    const n = /^\s*[0-9]+\s*$/.test(args.top) ? Number(args.top) : NaN;
    if (!Number.isSafeInteger(n) || n < 1 || n > TOP_MAX) throw new BadInputError("--top", `must be a whole number from 1 to ${TOP_MAX}, got "${args.top}"`);
    options.top = n;
  }
  if (args.queue !== undefined) {
    if (!/^[^@#]+@[^@#]+#[0-9]+$/.test(args.queue)) throw new BadInputError("--queue", `"${args.queue}" is not a queue name; write Topic@broker#queueId, e.g. TopicTest@broker-a#0`);
    options.queue = args.queue;
  }
  if (args.group !== undefined) {
    if (args.group.trim() === "") throw new BadInputError("--group", "must name a consumer group (it is empty)");
    options.group = args.group;
  }
  return options;
}

function duration(option: string, text: string): number {
  try {
    return parseDurationUs(text, option);
  } catch (error) {
    if (error instanceof InputError) throw new BadInputError(option, error.reason);
    throw error;
  }
}

function positiveDuration(option: string, text: string): number {
  const us = duration(option, text);
  if (us <= 0) throw new BadInputError(option, "must be greater than 0");
  return us;
}

export async function explainCommand(args: ExplainArgs, env: Pick<CliEnv, "fs" | "cwd" | "stdout">): Promise<number> {
  const options = parseExplainArgs(args);
  const raw = await readJsonFile(env.fs, resolve(env.cwd, args.scenario), args.scenario);
  let model;
  try {
    model = normalizeScenario(raw);
  } catch (error) {
    throw inFile(args.scenario, error);
  }
  if (options.atUs !== undefined && options.atUs > (options.durationUs ?? model.durationUs)) {
    throw new BadInputError("--at", `is after the end of the run (${args.duration ?? "the scenario's duration"})`);
  }
  let explanation;
  try {
    explanation = explain(model, options);
  } catch (error) {
    if (error instanceof ExplainInputError) throw new BadInputError(error.option, error.message);
    throw error;
  }
  env.stdout.write(args.json === true ? `${JSON.stringify(explanation, null, 2)}\n` : renderExplanation(explanation));
  return EXIT.ok;
}
