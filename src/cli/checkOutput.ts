// What `rmqsim check` says about its runs: the verdict of each, the human text, the --json records
// and the JUnit suites — all from the same JobResult objects (split from checkCommand.ts).
import { basename } from "node:path";
import type { CheckCase, CheckSuite } from "../checks/junit.ts";
import { failureLines } from "../checks/failureDetail.ts";
import type { CheckOptions, JobResult } from "./checkTypes.ts";
import { formatSeedSpread } from "./seedSpread.ts";

/** Whether a run passes: it completed, every expectation held, it was deterministic and within its baseline. */
export function passed(r: JobResult, options: Pick<CheckOptions, "updateBaseline">): boolean {
  return passedRun(r) && (r.baseline === undefined || r.baseline.ok || options.updateBaseline);
}

/** As passed, the baseline aside: what --update-baseline requires before it writes. */
export function passedRun(r: JobResult): boolean {
  if (r.error !== null || r.summary === null) return false;
  if (r.summary.expectations.some((e) => !e.ok)) return false;
  if (r.second && (r.second.traceHash !== r.summary.traceHash || !r.second.sameSummary)) return false;
  return true;
}

/** The command that reruns this run alone and writes its report. */
export function reproduceCommand(r: JobResult): string {
  return `rmqsim run ${r.job.file} --seed ${r.job.seed}`;
}

export function formatResults(results: readonly JobResult[], options: CheckOptions): string {
  let out = "";
  let failures = 0;
  for (const r of results) {
    const ok = passed(r, options);
    if (!ok) failures++;
    const head = `${ok ? "PASS" : "FAIL"}  ${r.job.name} (seed ${r.job.seed})  ${r.job.file}  ${(r.wallMs / 1000).toFixed(1)} s`;
    out += `${head}\n`;
    if (r.error !== null) out += `      error: ${r.error}\n`;
    if (r.summary !== null && !r.summary.complete) out += "      expectations not judged: the run is incomplete\n";
    else {
      for (const e of r.summary?.expectations ?? []) {
        out += `  ${e.ok ? "✓" : "✗"} ${e.expression}   [${e.actual}]\n`;
        for (const line of failureLines(e)) out += `      ${line}\n`;
      }
    }
    if (r.second) {
      const same = r.second.traceHash === r.summary?.traceHash && r.second.sameSummary;
      out += same
        ? `  ✓ deterministic: trace ${r.second.traceHash} twice\n`
        : `  ✗ not deterministic: trace ${r.summary?.traceHash} then ${r.second.traceHash}${r.second.sameSummary ? "" : ", summaries differ"}\n`;
    }
    if (r.baseline !== undefined) out += r.baseline.text.split("\n").map((l) => `  ${l}\n`).join("");
    if (!ok) out += `  reproduce: ${reproduceCommand(r)}\n`;
    if (r.reportDir !== undefined) out += `  report: ${r.reportDir}/report.html\n`;
  }
  if (options.seeds > 1) out += formatSeedSpread(results.map((r) => ({ name: r.job.name, summary: r.summary })));
  out += `${results.length - failures} passed, ${failures} failed\n`;
  return out;
}

export function toJson(r: JobResult) {
  const c = r.baseline?.comparison;
  return {
    file: r.job.file, scenario: r.job.name, seed: r.job.seed, error: r.error, complete: r.summary?.complete ?? false,
    expectations: r.summary?.expectations ?? [], traceHash: r.summary?.traceHash ?? null,
    ...(r.second ? { deterministic: r.second.traceHash === r.summary?.traceHash && r.second.sameSummary } : {}),
    ...(r.baseline !== undefined && !r.baseline.ok ? { drift: r.baseline.text } : {}),
    ...(r.baseline !== undefined
      ? { baseline: { ok: r.baseline.ok, text: r.baseline.text, ...(c ? { compared: c.compared, skipped: c.skipped, added: c.added, failures: c.failures, improved: c.improved, worst: c.worst } : {}) } }
      : {}),
    reproduce: reproduceCommand(r),
    ...(r.reportDir !== undefined ? { reportDir: r.reportDir } : {}),
  };
}

export function toSuite(r: JobResult, options: CheckOptions): CheckSuite {
  // A failure's body says what to do next: rerun it, open its report.
  const next = [`reproduce: ${reproduceCommand(r)}`, ...(r.reportDir !== undefined ? [`report: ${r.reportDir}/report.html`] : [])];
  const cases: CheckCase[] = (r.summary?.expectations ?? []).map((e) => {
    const lines = failureLines(e);
    return {
      name: e.expression, ok: e.ok, actual: e.actual,
      ...(e.ok ? {} : { message: lines.length > 0 ? lines.join("; ") : `actual: ${e.actual}`, details: [...lines, ...next] }),
    };
  });
  if (r.second) {
    const same = r.second.traceHash === r.summary?.traceHash && r.second.sameSummary;
    cases.push({ name: "determinism", ok: same, actual: `trace ${r.summary?.traceHash} / ${r.second.traceHash}`, ...(same ? {} : { details: next }) });
  }
  if (r.baseline !== undefined && !options.updateBaseline) {
    const firstLine = r.baseline.text.split("\n", 1)[0] ?? "";
    cases.push({ name: "baseline", ok: r.baseline.ok, actual: firstLine, ...(r.baseline.ok ? {} : { message: r.baseline.text, details: next }) });
  }
  return {
    name: r.job.name, file: basename(r.job.file), seed: r.job.seed, timeMs: r.wallMs, cases,
    ...(r.error !== null ? { error: `${r.error}\n${next.join("\n")}` } : {}),
  };
}
