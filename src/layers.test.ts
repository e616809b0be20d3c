// The layer rule, checked on the source tree: a folder of src/ may import its own files and those of
// any strictly lower layer, never a higher one nor another folder of its own layer (A ← B: B may import A):
//
//   sim ← scenario ← protocol ← net ← broker, client ← model ← metrics ← faults, checks ← run ← sweep, fuzz
//       ← report ← cli
//
// (protocol sits below net: the transport carries protocol records; the records know nothing of links.)
//
// Every production .ts file under src/ is parsed with the TypeScript parser (so an import inside a
// comment or a string is not one) for static imports and re-exports, `import type`, dynamic
// `import("…")` and type-level `import("…").T`; relative specifiers are resolved to the top-level
// folder they land in. Tests and test fixtures are outside the rule (a test may set up anything it
// needs), and so are bin/ and bench/, which are not under src/. The same pass checks the file-size
// limit of STYLE.md. Self-checks make sure the rule cannot pass by finding nothing.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, posix, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/** Each top-level folder of src/ and its layer; a folder may import its own layer's folder only if it is itself. */
const LAYERS: Readonly<Record<string, number>> = {
  sim: 0,
  scenario: 1,
  protocol: 2,
  net: 3,
  broker: 4,
  client: 4,
  model: 5,
  metrics: 6,
  faults: 7,
  checks: 7,
  run: 8,
  sweep: 9,
  fuzz: 9,
  explain: 9,
  report: 10,
  cli: 11,
};

/**
 * The one file directly in src/: the package's entry (`import { simulate } from "rmqsim"`), above every
 * layer — it may import any folder, and no folder may import it (it has no layer a folder could be above).
 */
const PACKAGE_ENTRY = "index.ts";
const PACKAGE_ENTRY_LEVEL = Object.keys(LAYERS).length;

/** STYLE.md: files stay small (roughly ≤ 400 lines). */
const LINES_MAX = 400;

/**
 * Test fixtures that are not named test*.ts, each with the reason it is one. A list rather than a
 * pattern such as *TestData.ts, so that a production file cannot leave the rule by its name alone.
 */
const FIXTURES_UNPATTERNED: Readonly<Record<string, string>> = {
  "report/sweepTestData.ts": "hand-built sweep results shared by the report's sweep tests",
};

/**
 * Files outside src/ a folder may import, by path relative to the repository root. Only the CLI
 * reaches outside, and only for data: `rmqsim --version` prints the package's version.
 */
const OUTSIDE_SRC_ALLOWED: Readonly<Record<string, readonly string[]>> = {
  cli: ["package.json"],
};

const SRC_DIR = dirname(fileURLToPath(import.meta.url));

/** Why a file under src/ (path relative to src/, with "/") is outside the rule, or null if it is inside. */
function exclusionReason(file: string): string | null {
  const name = posix.basename(file);
  if (name.endsWith(".test.ts")) return "a test";
  if (/^test[A-Z]\w*\.ts$/.test(name)) return "a test fixture (test*.ts: the fakes and builders tests share)";
  return FIXTURES_UNPATTERNED[file] ?? null;
}

/** Every .ts file under src/, as paths relative to src/ with "/", sorted. */
function sourceFiles(dir = SRC_DIR): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...sourceFiles(full));
    else if (entry.endsWith(".ts")) out.push(relative(SRC_DIR, full).split(sep).join("/"));
  }
  return out;
}

interface ImportRef {
  specifier: string;
  /** 1-based line of the import in its file. */
  line: number;
}

/**
 * The module specifiers a file refers to: `import … from`, side-effect `import "…"`, `export … from`,
 * `import x = require("…")`, dynamic `import("…")` and type-level `import("…")`. A dynamic import of a
 * computed specifier is returned as "<computed>", because nobody can check what it loads.
 */
function importsOf(fileName: string, text: string): ImportRef[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const out: ImportRef[] = [];
  const add = (specifier: string, at: ts.Node): void => {
    out.push({ specifier, line: source.getLineAndCharacterOfPosition(at.getStart(source)).line + 1 });
  };
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined) {
      if (ts.isStringLiteral(node.moduleSpecifier)) add(node.moduleSpecifier.text, node);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const e = node.moduleReference.expression;
      add(ts.isStringLiteral(e) ? e.text : "<computed>", node);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      add(arg !== undefined && ts.isStringLiteralLike(arg) ? arg.text : "<computed>", node);
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      if (ts.isLiteralTypeNode(arg) && ts.isStringLiteral(arg.literal)) add(arg.literal.text, node);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** The top-level folder of a path relative to src/ ("" for a file directly in src/). */
function folderOf(file: string): string {
  const slash = file.indexOf("/");
  return slash < 0 ? "" : file.slice(0, slash);
}

function describeFolder(folder: string): string {
  return `${folder === "" ? "src/" : folder} ${LAYERS[folder] ?? "?"}`;
}

/**
 * The violation `file → import (folder level → folder level)` if `file` (relative to src/) may not
 * import `specifier`, else null. Packages (non-relative specifiers) are not layers; a relative import
 * that leaves src/ (except for OUTSIDE_SRC_ALLOWED), lands in a folder with no layer, or is computed
 * is always a violation.
 */
function layerViolation(file: string, specifier: string): string | null {
  const from = folderOf(file);
  const show = (to: string): string => `src/${file} → ${specifier} (${describeFolder(from)} → ${to})`;
  if (specifier === "<computed>") return show("a computed specifier");
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) return null;
  const target = posix.normalize(posix.join(posix.dirname(file), specifier));
  if (target.startsWith("../")) {
    const allowed = OUTSIDE_SRC_ALLOWED[from]?.some((outside) => target === `../${outside}`) ?? false;
    return allowed ? null : show("outside src/");
  }
  const to = folderOf(target);
  const fromLevel = file === PACKAGE_ENTRY ? PACKAGE_ENTRY_LEVEL : LAYERS[from];
  const toLevel = LAYERS[to];
  if (fromLevel === undefined || toLevel === undefined) return show(describeFolder(to));
  if (to === from || toLevel < fromLevel) return null;
  return show(describeFolder(to));
}

function lineCount(text: string): number {
  if (text === "") return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

// ------------------------------------------------------------------------------------------ the tree

const allFiles = sourceFiles();
const production = allFiles.filter((f) => f !== "layers.test.ts" && exclusionReason(f) === null);
const texts = new Map(production.map((f) => [f, readFileSync(join(SRC_DIR, f), "utf8")]));
const imports = production.flatMap((file) => importsOf(file, texts.get(file)!).map((ref) => ({ file, ...ref })));
const relativeImports = imports.filter((i) => i.specifier.startsWith(".") || i.specifier === "<computed>");

describe("the layer rule: sim ← scenario ← net, protocol ← broker, client ← model ← metrics ← faults, checks ← run ← sweep ← report ← cli", () => {
  it("lists which files it leaves out, and why", () => {
    const excluded = allFiles
      .filter((f) => !f.endsWith(".test.ts") && exclusionReason(f) !== null)
      .map((f) => `src/${f}: ${exclusionReason(f)}`);
    console.log(`layers: ${production.length} production files checked; test files (*.test.ts, incl. this one) and these fixtures left out:\n  ${excluded.join("\n  ")}`);
    // The fixtures the architecture names; the list above may grow, these must stay out.
    for (const fixture of ["net/testContext.ts", "report/testScenario.ts", "report/sweepTestData.ts", "cli/testEnv.ts"]) {
      if (allFiles.includes(fixture)) expect(exclusionReason(fixture)).not.toBeNull();
    }
    expect(exclusionReason("broker/Broker.ts")).toBeNull();
    expect(exclusionReason("report/sweepTestDataDriven.ts")).toBeNull();
  });

  it("has a layer for every top-level folder of src/, and a folder for every layer", () => {
    const folders = readdirSync(SRC_DIR).filter((e) => statSync(join(SRC_DIR, e)).isDirectory()).sort();
    expect(folders).toEqual(Object.keys(LAYERS).sort());
    expect(production.filter((f) => folderOf(f) === "")).toEqual([PACKAGE_ENTRY]);
  });

  it("finds the imports: more than 50 files and 100 relative imports are checked", () => {
    expect(production.length).toBeGreaterThan(50);
    expect(relativeImports.length).toBeGreaterThan(100);
  });

  it("detects an upward, a sideways and a dynamic import in a synthetic file, and ignores one in a comment", () => {
    const text = [
      'import { Broker } from "../broker/Broker.ts";',
      'import type { NodeContext } from "../net/Node.ts";',
      'export { Routes } from "../protocol/routes.ts";',
      'import { Scheduler } from "../sim/Scheduler.ts";',
      "// import { main } from \"../cli/main.ts\";",
      'const later = () => import("../model/Cluster.ts");',
      'type T = import("../report/csv.ts").Row;',
      'import "./sideEffect.ts";',
      'import seedrandom from "seedrandom";',
    ].join("\n");
    const refs = importsOf("protocol/synthetic.ts", text);
    expect(refs.map((r) => r.specifier)).toEqual([
      "../broker/Broker.ts",
      "../net/Node.ts",
      "../protocol/routes.ts",
      "../sim/Scheduler.ts",
      "../model/Cluster.ts",
      "../report/csv.ts",
      "./sideEffect.ts",
      "seedrandom",
    ]);
    expect(refs.find((r) => r.specifier === "../model/Cluster.ts")?.line).toBe(6);
    expect(refs.map((r) => layerViolation("protocol/synthetic.ts", r.specifier))).toEqual([
      "src/protocol/synthetic.ts → ../broker/Broker.ts (protocol 2 → broker 4)",
      "src/protocol/synthetic.ts → ../net/Node.ts (protocol 2 → net 3)",
      null,
      null,
      "src/protocol/synthetic.ts → ../model/Cluster.ts (protocol 2 → model 5)",
      "src/protocol/synthetic.ts → ../report/csv.ts (protocol 2 → report 10)",
      null,
      null,
    ]);
    expect(layerViolation("sim/x.ts", "../../bench/kernel.ts")).toBe("src/sim/x.ts → ../../bench/kernel.ts (sim 0 → outside src/)");
    expect(layerViolation("sim/x.ts", "../../package.json")).toBe("src/sim/x.ts → ../../package.json (sim 0 → outside src/)");
    expect(layerViolation("cli/x.ts", "../../package.json")).toBeNull();
    expect(layerViolation("cli/x.ts", "../../bench/kernel.ts")).toBe("src/cli/x.ts → ../../bench/kernel.ts (cli 11 → outside src/)");
    expect(layerViolation("cli/x.ts", "../sim/Scheduler.ts")).toBeNull();
    // The package entry imports down into any folder; no folder imports it.
    expect(layerViolation("index.ts", "./cli/main.ts")).toBeNull();
    expect(layerViolation("index.ts", "./sim/Scheduler.ts")).toBeNull();
    expect(layerViolation("cli/x.ts", "../index.ts")).toBe("src/cli/x.ts → ../index.ts (cli 11 → src/ ?)");
    // Sideways within a layer: broker and client never import each other.
    expect(layerViolation("broker/x.ts", "../client/PushConsumer.ts")).toBe("src/broker/x.ts → ../client/PushConsumer.ts (broker 4 → client 4)");
    expect(layerViolation("client/x.ts", "../broker/Broker.ts")).toBe("src/client/x.ts → ../broker/Broker.ts (client 4 → broker 4)");
    expect(layerViolation("cli/x.ts", importsOf("cli/x.ts", "import(name);")[0]!.specifier)).toBe(
      "src/cli/x.ts → <computed> (cli 11 → a computed specifier)",
    );
  });

  it("no production file imports upward or sideways", () => {
    const violations = imports.map((i) => layerViolation(i.file, i.specifier)).filter((v): v is string => v !== null);
    const unique = [...new Set(violations)];
    if (unique.length > 0) console.log(`layer violations (${unique.length}):\n${unique.join("\n")}`);
    expect(unique, unique.join("\n")).toEqual([]);
  });

  it("no production file imports a test fixture (which the rule does not check)", () => {
    const intoFixtures = imports
      .filter((i) => i.specifier.startsWith("."))
      .map((i) => ({ ...i, target: posix.normalize(posix.join(posix.dirname(i.file), i.specifier)) }))
      .filter((i) => !i.target.startsWith("../") && exclusionReason(i.target) !== null)
      .map((i) => `src/${i.file} → ${i.specifier}`);
    expect(intoFixtures).toEqual([]);
  });

  it(`no production file is longer than ${LINES_MAX} lines`, () => {
    const long = production
      .map((f) => ({ f, lines: lineCount(texts.get(f)!) }))
      .filter((x) => x.lines > LINES_MAX)
      .map((x) => `src/${x.f}: ${x.lines} lines`);
    expect(lineCount("a\nb\n")).toBe(2);
    expect(long).toEqual([]);
  });
});
