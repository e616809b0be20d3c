#!/usr/bin/env node
// Builds dist/: src/ compiled by tsc (tsconfig.build.json: ES modules, .d.ts, relative imports rewritten
// from .ts to .js, tests and test fixtures left out), plus the worker-thread entry files. A checkout
// runs src/ through tsx and never needs dist/; the packed tarball and git dependencies do, because Node
// refuses TypeScript under node_modules and a service's vitest suite loads its dependencies with Node.
//
// `npm pack` and a git dependency's install run it through the `prepare` script; so does `npm ci` /
// `npm install` in a checkout, hence the freshness check: when dist/ is newer than every input it does
// nothing (`--force` rebuilds anyway). Plain JavaScript, so it needs nothing but Node and typescript.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const DIST = join(ROOT, "dist");
/** Written last: its presence and time say a build finished and when. */
const STAMP = join(DIST, ".build-stamp");
const INPUTS = ["src", "tsconfig.json", "tsconfig.build.json", "package.json", "scripts/build.mjs"];

/** Newest modification time (ms) of a file or of the files under a directory. */
function newestMs(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMs(join(path, entry)));
  return newest;
}

/**
 * The worker-thread entry files (src/cli/*Boot.mjs) register tsx before importing their TypeScript
 * body, because a worker does not inherit the main thread's loader. Compiled, they import the body's
 * .js directly. Returns the compiled text, or throws if the file has a shape this does not expect.
 */
export function compileBoot(text, name) {
  const out = text
    .split("\n")
    .filter((line) => !/^import \{ register \} from "tsx\/esm\/api";$/.test(line) && line !== "register();")
    .join("\n")
    .replace(/(import\("\.\/[A-Za-z]+)\.ts("\))/g, "$1.js$2");
  if (/tsx|\.ts"/.test(out.replace(/^\/\/.*$/gm, ""))) throw new Error(`scripts/build.mjs: ${name} does not have the shape expected (register(); then import("./x.ts")):\n${text}`);
  return `// Compiled from src/cli/${name} by scripts/build.mjs: the body is already JavaScript.\n${out}`;
}

function build() {
  const started = Date.now();
  rmSync(DIST, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  const result = spawnSync(process.execPath, [tsc, "-p", join(ROOT, "tsconfig.build.json")], { stdio: "inherit" });
  if (result.status !== 0) {
    rmSync(DIST, { recursive: true, force: true });
    process.stderr.write(`scripts/build.mjs: tsc failed (exit ${result.status ?? result.signal}); dist/ removed\n`);
    process.exit(1);
  }
  const cli = join(ROOT, "src", "cli");
  const boots = readdirSync(cli).filter((n) => n.endsWith("Boot.mjs"));
  for (const name of boots) writeFileSync(join(DIST, "cli", name), compileBoot(readFileSync(join(cli, name), "utf8"), name));
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
  const files = readdirSync(DIST, { recursive: true }).length;
  process.stderr.write(`rmqsim: built ${relative(ROOT, DIST)}/ (${files} entries, ${boots.length} worker entries) in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const force = process.argv.includes("--force");
  const stampMs = existsSync(STAMP) ? statSync(STAMP).mtimeMs : 0;
  const inputsMs = Math.max(...INPUTS.map((p) => newestMs(join(ROOT, p))));
  if (!force && stampMs > inputsMs) process.stderr.write("rmqsim: dist/ is up to date (scripts/build.mjs --force rebuilds it)\n");
  else build();
}
