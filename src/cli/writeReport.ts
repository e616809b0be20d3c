// Writing a report directory all or nothing. Every file goes into a temporary sibling directory;
// only when all are written does it replace the old report, by rename. A failure at any point
// removes the temporary directory and leaves the previous report exactly as it was.
import { basename, dirname, join } from "node:path";
import { BadInputError, ReportWriteError } from "./errors.ts";
import type { CliFs } from "./env.ts";

const FILE_NAME_RE = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/**
 * Refuses an output path that would destroy something that is not a report: an existing file, or a
 * non-empty directory without summary.json (`--out src` must not wipe the sources). `shown` is the
 * path as the user should read it.
 */
export async function checkReportTarget(fs: CliFs, dir: string, shown: string): Promise<void> {
  const kind = await fs.kind(dir);
  if (kind === "missing") return;
  if (kind !== "dir") throw new BadInputError(`--out ${shown}`, "exists and is not a directory");
  const names = await fs.readDir(dir);
  if (names.length > 0 && !names.includes("summary.json")) {
    throw new BadInputError(`--out ${shown}`, "is a directory that does not hold an rmqsim report (no summary.json); refusing to replace it");
  }
}

/**
 * A sentence saying what `dir` held when it is a report of another scenario than `scenario` (its
 * summary.json's "scenario"), read before the new report replaces it: `--out` pointed at another
 * scenario's report is replaced, but never silently. Null when `dir` holds no readable report or one of
 * the same scenario (re-running a scenario replaces its own report, as expected).
 */
export async function replacedReportNotice(fs: CliFs, dir: string, shown: string, scenario: string): Promise<string | null> {
  const summary = await readJsonObject(fs, join(dir, "summary.json"));
  const held = summary?.scenario;
  if (typeof held !== "string" || held === scenario) return null;
  const run = await readJsonObject(fs, join(dir, "run.json"));
  const facts = [
    typeof summary!.seed === "number" ? `seed ${summary!.seed}` : null,
    typeof summary!.profile === "string" ? `profile ${summary!.profile}` : null,
    typeof run?.startedAt === "string" ? `run at ${run.startedAt}` : null,
  ].filter((f) => f !== null);
  const about = facts.length === 0 ? "" : ` (${facts.join(", ")})`;
  return `replaced ${shown}, which held the report of another scenario, ${JSON.stringify(held)}${about}, with this run of ${JSON.stringify(scenario)}`;
}

async function readJsonObject(fs: CliFs, file: string): Promise<Record<string, unknown> | null> {
  try {
    const value: unknown = JSON.parse(await fs.readText(file));
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null; // missing or not JSON: nothing to say about it
  }
}

export interface WriteHooks {
  /** Told the temporary directory while it exists (and null after), so Ctrl-C can remove it. */
  onTemp?: (dir: string | null) => void;
  /** Whether a process is alive: siblings `<dir>.tmp-<pid>` / `.old-<pid>` of dead pids are removed. */
  pidAlive?: (pid: number) => boolean;
}

/**
 * A run killed during its write (SIGKILL) leaves `<dir>.tmp-<pid>` or `<dir>.old-<pid>` beside the report
 * (issue 15 item 7): remove those whose process is gone (never another live run's, nor our own).
 */
export async function removeStaleSiblings(fs: CliFs, dir: string, pid: number, pidAlive: (pid: number) => boolean): Promise<string[]> {
  const parent = dirname(dir);
  if ((await fs.kind(parent)) !== "dir") return [];
  const prefix = `${basename(dir)}.`;
  const removed: string[] = [];
  for (const name of await fs.readDir(parent)) {
    if (!name.startsWith(prefix)) continue;
    const m = /^(tmp|old)-(\d+)$/.exec(name.slice(prefix.length));
    if (m === null) continue;
    const owner = Number(m[2]);
    if (owner === pid || pidAlive(owner)) continue;
    await fs.remove(join(parent, name));
    removed.push(name);
  }
  return removed.sort();
}

/** Writes `files` as the directory `dir`, replacing any previous report there atomically. */
export async function writeReportDir(
  fs: CliFs,
  dir: string,
  files: ReadonlyMap<string, Uint8Array | string>,
  pid: number,
  hooks: WriteHooks = {},
): Promise<void> {
  for (const name of files.keys()) {
    if (!FILE_NAME_RE.test(name)) throw new Error(`report file name ${JSON.stringify(name)} is not a plain file name`);
  }
  const temp = join(dirname(dir), `${basename(dir)}.tmp-${pid}`);
  const old = join(dirname(dir), `${basename(dir)}.old-${pid}`);
  try {
    await fs.remove(temp); // left by a crashed run that had the same pid
    if (hooks.pidAlive) await removeStaleSiblings(fs, dir, pid, hooks.pidAlive);
    hooks.onTemp?.(temp);
    await fs.mkdir(temp);
    for (const [name, data] of files) await fs.writeFile(join(temp, name), data);
    // Move the old report aside rather than deleting it first: if the final rename fails, it can
    // be put back, so there is never a moment where a failure leaves no report at all.
    const hadOld = (await fs.kind(dir)) !== "missing";
    if (hadOld) {
      await fs.remove(old);
      await fs.rename(dir, old);
    }
    try {
      await fs.rename(temp, dir);
    } catch (error) {
      if (hadOld) await fs.rename(old, dir);
      throw error;
    }
    hooks.onTemp?.(null);
    if (hadOld) await fs.remove(old).catch(() => {});
  } catch (error) {
    await fs.remove(temp).catch(() => {});
    hooks.onTemp?.(null);
    throw new ReportWriteError(dir, error);
  }
}
