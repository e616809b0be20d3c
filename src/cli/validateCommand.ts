// `rmqsim validate <files...>`: reads and validates each scenario file without running it.
import { resolve } from "node:path";
import { normalizeScenario } from "../scenario/normalize.ts";
import { checkSubscriptionFilters } from "../broker/messageFilter.ts";
import type { CliEnv } from "./env.ts";
import { BadInputError, EXIT, inFile } from "./errors.ts";
import { readJsonFile } from "./readJson.ts";

export interface ValidateVerdict {
  file: string;
  ok: boolean;
  /** Why the file was not validated (a JSON Schema matched by a glob such as scenarios/*.json). */
  skipped?: string;
  /** Where the first problem is: "file", "file: field.path" or "file:line:column". */
  where?: string;
  message?: string;
}

/** The pure-ish step: one verdict per file, in the order given. Only bad input becomes a verdict. */
export async function validateFiles(files: readonly string[], env: Pick<CliEnv, "fs" | "cwd">): Promise<ValidateVerdict[]> {
  const verdicts: ValidateVerdict[] = [];
  for (const file of files) {
    try {
      const raw = await readJsonFile(env.fs, resolve(env.cwd, file), file);
      if (isJsonSchema(raw)) {
        verdicts.push({ file, ok: true, skipped: "a JSON Schema, not a scenario" });
        continue;
      }
      checkSubscriptionFilters(normalizeScenario(raw)); // SQL92 subscriptions compile (the evaluator is the broker's)
      verdicts.push({ file, ok: true });
    } catch (raw) {
      const error = inFile(file, raw);
      if (!(error instanceof BadInputError)) throw error;
      verdicts.push({ file, ok: false, where: error.where, message: error.reason });
    }
  }
  return verdicts;
}

/** scenarios/schema.json itself: its "$schema" names a JSON Schema dialect, a scenario's names a file. */
function isJsonSchema(raw: unknown): boolean {
  const dialect = (raw as { $schema?: unknown } | null)?.$schema;
  return typeof dialect === "string" && /^https?:\/\/json-schema\.org\//.test(dialect);
}

export async function validateCommand(files: readonly string[], options: { json: boolean }, env: CliEnv): Promise<number> {
  const verdicts = await validateFiles(files, env);
  if (options.json) {
    env.stdout.write(`${JSON.stringify(verdicts, null, 2)}\n`);
  } else {
    for (const v of verdicts) {
      if (v.skipped !== undefined) env.stdout.write(`skip  ${v.file} (${v.skipped})\n`);
      else if (v.ok) env.stdout.write(`ok  ${v.file}\n`);
      else env.stderr.write(`rmqsim: ${v.where}: ${v.message}\n`);
    }
  }
  return verdicts.every((v) => v.ok) ? EXIT.ok : EXIT.badInput;
}
