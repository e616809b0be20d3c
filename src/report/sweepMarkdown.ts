// recommendation.md: the sweep's answer for people, README-style: what was swept, the recommended
// value and why, the runner-up, every point in a table, and how to read the numbers.
import { paramPaths } from "../sweep/grid.ts";
import type { MetricStats, SweepPoint, SweepResult } from "../sweep/types.ts";
import { sweepChartRuntime } from "./sweepChartRuntime.ts";
import {
  failedRequirements,
  formatParamValue,
  HEAP_METRIC,
  MEMORY_METRIC,
  metricLabel,
  noRecommendationSentences,
  paramName,
  pointByIndex,
  pointParamsText,
  recommendationWarnings,
  requirementTallies,
  statsOf,
  tieBreakersText,
  type RequirementTally,
} from "./sweepLabels.ts";

/** The metrics of the points table and the recommendation table, in column order. */
const TABLE_METRICS = ["throughput.consumedPerSec.mean", MEMORY_METRIC, HEAP_METRIC, "latency.endToEnd.p99Ms", "lag.committed.max"];

const TABLE_HEADINGS: Readonly<Record<string, string>> = {
  "throughput.consumedPerSec.mean": "throughput (msg/s)",
  [MEMORY_METRIC]: "memory / consumer (MiB)",
  [HEAP_METRIC]: "heap estimate / consumer (MiB)",
  "latency.endToEnd.p99Ms": "p99 latency (ms)",
  "lag.committed.max": "peak committed lag (msg)",
};

/** Inline code that survives backticks inside. */
function code(s: string): string {
  return s.includes("`") ? `\`\` ${s} \`\`` : `\`${s}\``;
}

/** A table cell: pipes escaped, line breaks flattened. */
function cell(s: string): string {
  return s.replaceAll("|", "\\|").replace(/\r?\n/g, " ");
}

function row(cells: string[]): string {
  return `| ${cells.map(cell).join(" | ")} |`;
}

function meanCi(s: MetricStats | null): string {
  return sweepChartRuntime().rmqSweepMeanCi(s, "");
}

export function renderSweepMarkdown(result: SweepResult): string {
  const recommended = pointByIndex(result, result.recommendation?.point);
  const runnerUp = pointByIndex(result, result.recommendation?.runnerUp);
  const metrics = TABLE_METRICS.filter((m) => result.points.some((p) => statsOf(p, m) !== null));
  const tallies = requirementTallies(result);
  const sections = [
    `# Sweep: ${result.scenario}`,
    sweptText(result),
    objectiveText(result, tallies),
    recommended ? recommendationText(result, recommended, runnerUp, metrics) : noRecommendationText(result),
    pointsTable(result, metrics, recommended, runnerUp),
    howToRead(result, metrics),
  ];
  return sections.filter((s) => s !== "").join("\n\n") + "\n";
}

function sweptText(result: SweepResult): string {
  const swept = result.params
    .map((p) => `${paramPaths(p).map(code).join(" = ")} over ${p.values.map(formatParamValue).join(", ")} (${code(p.spec)})`)
    .join(" and ");
  const seeds = result.seeds === 1 ? `seed ${result.baseSeed}` : `seeds ${result.baseSeed}–${result.baseSeed + result.seeds - 1}`;
  const lines = [
    `Swept ${swept || "nothing (a single point)"}: ${result.points.length} points × ${result.seeds} ${result.seeds === 1 ? "run" : "runs"} (${seeds}); ` +
      `the first ${formatParamValue(result.warmupMs / 1000)} s of each run are left out of its metrics.`,
  ];
  if (result.shard !== null) lines.push(`This is shard ${result.shard}, a partial result: merge the shards (\`rmqsim merge\`) for the whole sweep.`);
  if (!result.complete) lines.push("The sweep was stopped early: only the finished points are here.");
  const unfinished = result.points.reduce((n, p) => n + p.runs.filter((r) => !r.complete).length, 0);
  if (unfinished > 0) lines.push(`${unfinished} run${unfinished === 1 ? "" : "s"} did not simulate the whole duration.`);
  return lines.join(" ");
}

function objectiveText(result: SweepResult, tallies: RequirementTally[]): string {
  const o = result.recommendation?.objective ?? result.objective;
  const goal = `Objective: ${o.direction} ${code(o.metric)}`;
  const ties = tieBreakersText(o, code);
  const warnings = recommendationWarnings(result).map((w) => `\n\n> **Warning:** ${w}`).join("");
  if (tallies.length === 0) return `${goal}; no requirements, so every point qualifies${ties}.${warnings}`;
  const rows = tallies.map((t) => row([code(t.requirement), `${t.met} of ${t.points}`]));
  return [`${goal} among the points that meet every requirement (on the means over the seeds)${ties}:`, "", "| requirement | points meeting it |", "|---|---:|", ...rows].join("\n") + warnings;
}

function recommendationText(result: SweepResult, recommended: SweepPoint, runnerUp: SweepPoint | null, metrics: string[]): string {
  const values = result.params.map((p) => formatParamValue(recommended.params[p.path] ?? "")).join(", ");
  const lines = [
    `## Recommendation: ${pointParamsText(result.params, recommended)}`,
    "",
    result.params.flatMap(paramPaths).map((path) => `- ${code(`${path} = ${formatParamValue(recommended.params[path] ?? "")}`)}`).join("\n"),
    "",
    `Why: ${result.recommendation?.reason ?? ""}`,
    "",
  ];
  const heads = ["", `recommended (${values})`];
  if (runnerUp) heads.push(`runner-up (${result.params.map((p) => formatParamValue(runnerUp.params[p.path] ?? "")).join(", ")})`);
  lines.push(row(heads), `|---|${heads.slice(1).map(() => "---:").join("|")}|`);
  for (const m of metrics) {
    const u = metricLabel(m).unit;
    lines.push(row([`${metricLabel(m).label}${u ? ` (${u})` : ""}`, meanCi(statsOf(recommended, m)), ...(runnerUp ? [meanCi(statsOf(runnerUp, m))] : [])]));
  }
  lines.push("", runnerUp ? `Runner-up: ${pointParamsText(result.params, runnerUp)}, the next best point that meets every requirement.` : "No other point meets every requirement, so there is no runner-up.");
  return lines.join("\n");
}

function noRecommendationText(result: SweepResult): string {
  const lines = ["## No recommendation", "", ...noRecommendationSentences(result, code, (t) => t)];
  if (result.recommendation?.reason) lines.push("", `The sweep says: ${result.recommendation.reason}`);
  lines.push("", "Relax the requirement, widen the swept range, or change another setting (more consumers, more consume threads) and sweep again.");
  return lines.join("\n");
}

function pointsTable(result: SweepResult, metrics: string[], recommended: SweepPoint | null, runnerUp: SweepPoint | null): string {
  const heads = [...result.params.map((p) => paramName(result.params, p.path)), ...metrics.map((m) => TABLE_HEADINGS[m]!), "feasible"];
  // Numbers right-aligned; a parameter with text values and the feasible column left-aligned.
  const align = [...result.params.map((p) => (p.values.every((v) => typeof v === "number") ? "---:" : "---")), ...metrics.map(() => "---:"), "---"];
  const lines = ["## All points", "", row(heads), `|${align.join("|")}|`];
  for (const p of result.points) {
    const mark = p === recommended ? " (recommended)" : p === runnerUp ? " (runner-up)" : "";
    const params = result.params.map((q, i) => {
      const v = formatParamValue(p.params[q.path] ?? "");
      return i === result.params.length - 1 ? `${p === recommended ? `**${v}**` : v}${mark}` : v;
    });
    const failed = failedRequirements(result, p);
    const feasible = p.feasible ? "yes" : failed.length > 0 ? `no: misses ${failed.map(code).join(", ")}` : "no: no complete run";
    lines.push(row([...params, ...metrics.map((m) => meanCi(statsOf(p, m))), feasible]));
  }
  return lines.join("\n");
}

function howToRead(result: SweepResult, metrics: string[]): string {
  const spread =
    result.seeds > 1
      ? `Each point ran ${result.seeds} times, once per seed; a figure is the mean over those runs, and "± x" is the half-width of its 95 % confidence interval (Student t over the seeds). When two points' intervals overlap, the sweep cannot tell them apart: run more seeds (\`--seeds\`) before trusting a small difference.`
      : "Each point ran once, so no confidence interval can be given and a small difference between points may be noise: sweep again with `--seeds 3` or more before trusting it.";
  const defined = metrics.map((m) => {
    const { unit, description } = metricLabel(m);
    return `- ${code(m)}${unit ? ` (${unit})` : ""}: ${description || metricLabel(m).label}`;
  });
  return `## How to read this

${defined.length > 0 ? `${defined.join("\n")}\n\n` : ""}${spread} Memory per consumer is the peak of message bodies cached in one consumer's ProcessQueues, what \`pullThresholdSizeForQueue\` bounds; the heap estimate adds RocketMQ's objects around each cached message (2 360 bytes: the MessageExt, its properties map and strings, the ProcessQueue entry and the consume task), which is what to size the cache's share of the JVM heap with — not the whole heap. A point is feasible when every requirement holds on its means; the recommendation is the best feasible point by the objective, the runner-up the next best. sweep.csv has every metric of every point, sweep.html the interactive charts, and sweep.json the raw runs.`;
}
