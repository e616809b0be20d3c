// `rmqsim list [dir]`: the scenarios in a directory, name and the first sentence of the description
// in aligned columns (--json gives the whole description).
import { resolve } from "node:path";
import type { CliEnv } from "./env.ts";
import { BadInputError, EXIT, isBadInput } from "./errors.ts";
import { fileError, readJsonFile } from "./readJson.ts";

export const DEFAULT_SCENARIO_DIR = "scenarios";

export interface ScenarioEntry {
  file: string;
  name: string;
  description: string;
  /** Set when the file could not be read as JSON; name is then the file name. */
  error?: string;
}

export async function listScenarios(dir: string, env: Pick<CliEnv, "fs" | "cwd">): Promise<ScenarioEntry[]> {
  const abs = resolve(env.cwd, dir);
  const kind = await env.fs.kind(abs);
  if (kind === "missing") throw new BadInputError(dir, "no such directory");
  if (kind !== "dir") throw new BadInputError(dir, "is not a directory");
  let names: string[];
  try {
    names = await env.fs.readDir(abs);
  } catch (error) {
    throw fileError(dir, error);
  }
  // Sorted by code unit, not locale, so the listing is the same on every machine.
  const files = names.filter((n) => n.endsWith(".json") && n !== "schema.json").sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const entries: ScenarioEntry[] = [];
  for (const file of files) {
    try {
      const raw = await readJsonFile(env.fs, resolve(abs, file), file);
      const obj = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {};
      entries.push({
        file,
        name: typeof obj.name === "string" ? obj.name : file,
        description: typeof obj.description === "string" ? obj.description : "",
      });
    } catch (error) {
      if (!isBadInput(error)) throw error;
      entries.push({ file, name: file, description: "", error: error.message });
    }
  }
  return entries;
}

/** Longest description shown in the table; --json has the whole text. */
const SUMMARY_CHARS_MAX = 100;

export function formatScenarioList(entries: readonly ScenarioEntry[]): string {
  if (entries.length === 0) return "";
  const width = Math.max(...entries.map((e) => e.name.length));
  return entries
    .map((e) => `${e.name.padEnd(width)}  ${e.error !== undefined ? `(unreadable: ${e.error})` : firstSentence(e.description)}`.trimEnd())
    .join("\n") + "\n";
}

/** The description's first sentence, cut to SUMMARY_CHARS_MAX characters. */
export function firstSentence(text: string): string {
  const end = text.search(/[.!?](\s|$)/);
  const sentence = end < 0 ? text : text.slice(0, end + 1);
  return sentence.length > SUMMARY_CHARS_MAX ? `${sentence.slice(0, SUMMARY_CHARS_MAX - 1).trimEnd()}…` : sentence;
}

export async function listCommand(dir: string, options: { json: boolean }, env: CliEnv): Promise<number> {
  const entries = await listScenarios(dir, env);
  if (options.json) env.stdout.write(`${JSON.stringify(entries, null, 2)}\n`);
  else if (entries.length === 0) env.stderr.write(`rmqsim: no scenario files (*.json) in ${dir}\n`);
  else env.stdout.write(formatScenarioList(entries));
  return EXIT.ok;
}
