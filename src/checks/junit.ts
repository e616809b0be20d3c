// JUnit XML for `rmqsim check`, so CI systems (GitHub Actions reporters, GitLab, Jenkins) show one
// test per expectation. Pure: the CLI gathers the results and writes the file.
//
// Shape, in the widely read Ant dialect (no attribute outside what those three accept):
//
//   <testsuites name="rmqsim check" tests failures errors time>
//     <testsuite name="<scenario> (seed <n>)" tests failures errors skipped time [timestamp]>
//       <properties> file, seed </properties>
//       <testcase classname="<scenario>" name="<expression>" file time>
//         <failure message type="expectation">actual: …              (expectation did not hold)
//           threshold, when and where; reproduce: rmqsim run …; report: …</failure>
//       </testcase>
//       <testcase classname="<scenario>" name="run" …><error …>…</error></testcase>   (run failed)
//     </testsuite>
//   </testsuites>
//
// The output is a function of the input alone: no clock is read, and suites are sorted by
// (file, scenario, seed) because the CLI may finish runs in any order on its workers.

/** One expectation of one run. */
export interface CheckCase {
  /** The expectation as written in the scenario; it becomes the test case name. */
  name: string;
  ok: boolean;
  /** The figures the expectation saw, e.g. `messages.lost = 3`. */
  actual: string;
  /** Replaces the default failure message (`<name> did not hold`). */
  message?: string;
  /** More lines for a failure's body, after `actual: …`: threshold, when and where (failureDetail.ts),
   * the command that reproduces the run, where its report is. */
  details?: string[];
}

/** One run: a scenario under one seed. */
export interface CheckSuite {
  /** The scenario name. */
  name: string;
  /** The scenario file, as the user named it. */
  file: string;
  seed: number;
  /** How long the run took; it becomes the suite's `time` in seconds. */
  timeMs: number;
  cases: CheckCase[];
  /** Set when the run itself failed (bad input, conservation error…); reported as an `<error>` case. */
  error?: string;
}

export interface JUnitOptions {
  /** The `name` of `<testsuites>`; default "rmqsim check". */
  name?: string;
  /** Copied to every `<testsuite timestamp>` (ISO 8601, e.g. "2024-05-01T12:00:00"); omitted when absent. */
  timestamp?: string;
}

/** The name of the test case that stands for a failed run. */
export const RUN_ERROR_CASE = "run";

/** Attribute `message` values are cut to this many characters; the element body keeps the full text. */
const MESSAGE_CHARS_MAX = 500;

export function toJUnitXml(suites: readonly CheckSuite[], options: JUnitOptions = {}): string {
  const sorted = [...suites].sort(compareSuites);
  const totals = { tests: 0, failures: 0, errors: 0, timeMs: 0 };
  const body: string[] = [];
  for (const suite of sorted) {
    const counts = suiteCounts(suite);
    totals.tests += counts.tests;
    totals.failures += counts.failures;
    totals.errors += counts.errors;
    totals.timeMs += timeMsOf(suite);
    body.push(...suiteXml(suite, counts, options.timestamp));
  }
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites${attrs({
      name: options.name ?? "rmqsim check",
      tests: totals.tests,
      failures: totals.failures,
      errors: totals.errors,
      time: seconds(totals.timeMs),
    })}>`,
    ...body,
    `</testsuites>`,
    "",
  ].join("\n");
}

/** The suite name CI shows: `count-flow-control (seed 7)`. */
export function suiteName(suite: Pick<CheckSuite, "name" | "seed">): string {
  return `${suite.name} (seed ${suite.seed})`;
}

function compareSuites(a: CheckSuite, b: CheckSuite): number {
  return ordinal(a.file, b.file) || ordinal(a.name, b.name) || a.seed - b.seed;
}

function ordinal(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function suiteCounts(suite: CheckSuite): { tests: number; failures: number; errors: number } {
  const errors = suite.error === undefined ? 0 : 1;
  return {
    tests: suite.cases.length + errors,
    failures: suite.cases.filter((c) => !c.ok).length,
    errors,
  };
}

function suiteXml(suite: CheckSuite, counts: ReturnType<typeof suiteCounts>, timestamp: string | undefined): string[] {
  const lines = [
    `  <testsuite${attrs({
      name: suiteName(suite),
      tests: counts.tests,
      failures: counts.failures,
      errors: counts.errors,
      skipped: 0,
      time: seconds(timeMsOf(suite)),
      timestamp,
    })}>`,
    `    <properties>`,
    `      <property${attrs({ name: "file", value: suite.file })}/>`,
    `      <property${attrs({ name: "seed", value: suite.seed })}/>`,
    `    </properties>`,
  ];
  // Expectations are evaluated after the run, in no measurable time: the run's time belongs to the
  // suite (or to the error case, when the run is what failed).
  for (const c of suite.cases) {
    const head = `    <testcase${attrs({ classname: suite.name, name: c.name, file: suite.file, time: seconds(0) })}`;
    if (c.ok) {
      lines.push(`${head}/>`);
      continue;
    }
    const message = c.message ?? `${c.name} did not hold (actual: ${c.actual})`;
    lines.push(
      `${head}>`,
      `      <failure${attrs({ message: cut(message), type: "expectation" })}>${text([`actual: ${c.actual}`, ...(c.details ?? [])].join("\n"))}</failure>`,
      `    </testcase>`,
    );
  }
  if (suite.error !== undefined) {
    const firstLine = suite.error.split("\n", 1)[0] ?? "";
    lines.push(
      `    <testcase${attrs({ classname: suite.name, name: RUN_ERROR_CASE, file: suite.file, time: seconds(timeMsOf(suite)) })}>`,
      `      <error${attrs({ message: cut(firstLine), type: "run" })}>${text(suite.error)}</error>`,
      `    </testcase>`,
    );
  }
  lines.push(`  </testsuite>`);
  return lines;
}

function timeMsOf(suite: CheckSuite): number {
  return Number.isFinite(suite.timeMs) && suite.timeMs > 0 ? suite.timeMs : 0;
}

/** JUnit times are seconds; three decimals keep milliseconds and make the text stable. */
function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

function cut(s: string): string {
  return s.length > MESSAGE_CHARS_MAX ? `${s.slice(0, MESSAGE_CHARS_MAX - 1)}…` : s;
}

function attrs(values: Record<string, string | number | undefined>): string {
  let out = "";
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined) out += ` ${key}="${attribute(String(value))}"`;
  }
  return out;
}

/** Escapes element content. A bare CR would be read back as LF, so it is kept as a reference. */
export function escapeXmlText(s: string): string {
  return legal(s).replace(/[&<>"'\r]/g, (ch) => ENTITIES[ch]!);
}

/**
 * Escapes an attribute value. Parsers turn literal tabs and newlines in attributes into spaces, so
 * they are written as character references to survive the round trip.
 */
export function escapeXmlAttribute(s: string): string {
  return legal(s).replace(/[&<>"'\r\n\t]/g, (ch) => ENTITIES[ch]!);
}

const text = escapeXmlText;
const attribute = escapeXmlAttribute;

const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
  "\r": "&#13;",
  "\n": "&#10;",
  "\t": "&#9;",
};

/**
 * XML 1.0 forbids most control characters even as character references (`&#1;` is a fatal error),
 * as well as unpaired surrogates and U+FFFE/U+FFFF. They are written as visible `\u0001` text so the
 * document stays well-formed and the reader still sees that something odd was there.
 */
function legal(s: string): string {
  return s.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, (ch) =>
    `\\u${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`,
  );
}
