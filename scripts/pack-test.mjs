#!/usr/bin/env node
// The package as another repository gets it: `npm pack`, then a scratch project that installs the
// tarball and uses it — the bin on a shipped scenario, and the typed API from a TypeScript file that
// is type-checked, compiled and run. Exit 0 when everything works, 1 with the step that failed.
//
// Offline by design (CI runs it after `npm ci`, which filled the npm cache): the scratch project gets a
// package-lock.json built from this repository's own lockfile (the tarball's dependencies at exactly
// the versions, URLs and hashes `npm ci` fetched, plus typescript and @types/node for the typed file)
// and is installed with `npm ci --offline`, so no registry is asked anything. Last, the README's vitest
// example ("Using rmqsim from code") runs as printed, in that project, with vitest from the same cache.
//
//   node scripts/pack-test.mjs [--keep]      (--keep leaves the scratch directory for a look)
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8"));
const keep = process.argv.includes("--keep");
const started = Date.now();
const work = mkdtempSync(join(tmpdir(), "rmqsim-pack-"));
const app = join(work, "app");
const timings = [];

/** Runs a command, prints it with its wall time; returns its result. Fails the test unless `expectCode` matches. */
function run(what, cmd, args, { cwd = app, expectCode = 0, env = {} } = {}) {
  const t0 = Date.now();
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", env: { ...process.env, ...env }, maxBuffer: 64 << 20 });
  const seconds = (Date.now() - t0) / 1000;
  timings.push([what, seconds]);
  const code = r.status ?? r.signal;
  console.log(`pack-test: ${what}: exit ${code} in ${seconds.toFixed(1)} s`);
  if (code !== expectCode) fail(`${what}: expected exit ${expectCode}, got ${code}\n$ ${cmd} ${args.join(" ")}\n${r.stdout ?? ""}${r.stderr ?? ""}${r.error ? String(r.error) : ""}`);
  return r;
}

function fail(message) {
  console.error(`pack-test: FAIL ${message}`);
  if (!keep) rmSync(work, { recursive: true, force: true });
  else console.error(`pack-test: scratch project kept in ${work}`);
  process.exit(1);
}

function assert(ok, message) {
  if (!ok) fail(message);
}

/**
 * The root lockfile's entries for `names` and everything they depend on, keyed as in a lockfile
 * ("node_modules/x"), each marked dev when only `devNames` reach it. A dependency is looked up where
 * Node would find it: nested under its dependent first, then at the top.
 */
function lockClosure(names, devNames) {
  const out = {};
  const visit = (key, dev) => {
    const entry = lock.packages[key];
    if (entry === undefined) return false;
    const seen = out[key];
    if (seen !== undefined && (!seen.dev || dev)) return true;
    const { dev: _d, devOptional: _o, peer: _p, ...rest } = entry;
    out[key] = dev ? { ...rest, dev: true } : rest;
    // Peer dependencies too (vitest's on vite): npm installs them, and the lockfile must list them.
    const peers = Object.keys(entry.peerDependencies ?? {}).filter((p) => entry.peerDependenciesMeta?.[p]?.optional !== true);
    const deps = { ...entry.dependencies, ...entry.optionalDependencies, ...Object.fromEntries(peers.map((p) => [p, "*"])) };
    for (const name of Object.keys(deps)) {
      // Optional dependencies for other platforms may be missing from the lockfile: npm ci skips them too.
      if (!visit(`${key}/node_modules/${name}`, dev)) visit(`node_modules/${name}`, dev);
    }
    return true;
  };
  for (const name of devNames) if (!visit(`node_modules/${name}`, true)) fail(`${name} is not in package-lock.json`);
  for (const name of names) if (!visit(`node_modules/${name}`, false)) fail(`${name} is not in package-lock.json`);
  return out;
}

// ---------------------------------------------------------------------------------------- pack
const packed = run("npm pack", "npm", ["pack", "--json", "--pack-destination", work], { cwd: ROOT });
const info = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("[")))[0];
const tarball = join(work, info.filename);
const paths = info.files.map((f) => f.path);
const unwanted = paths.filter((p) => /^(src|test|bench|reports|docs|\.ci|scripts)\/|\.test\.|\.build-stamp$|\.tsbuildinfo$/.test(p));
assert(unwanted.length === 0, `the tarball holds files it should not: ${unwanted.slice(0, 10).join(", ")}`);
for (const needed of ["package.json", "bin/rmqsim.js", "dist/index.js", "dist/index.d.ts", "dist/cli/main.js", "dist/cli/simWorkerBoot.mjs", "dist/cli/poolWorkerBoot.mjs", "dist/cli/fuzzWorkerBoot.mjs", "scenarios/default.json", "README.md"]) {
  assert(paths.includes(needed), `the tarball lacks ${needed}`);
}
console.log(`pack-test: ${info.filename}: ${info.entryCount} files, ${(info.size / 1024).toFixed(0)} KiB packed, ${(info.unpackedSize / 1024).toFixed(0)} KiB unpacked`);

// ----------------------------------------------------------------------- scratch project, offline
mkdirSync(app);
const devTools = Object.fromEntries(["typescript", "@types/node", "vitest"].map((name) => [name, lock.packages[`node_modules/${name}`].version]));
const appPkg = {
  name: "rmqsim-pack-test", version: "0.0.0", private: true, type: "module",
  dependencies: { rmqsim: `file:../${info.filename}` },
  devDependencies: devTools,
};
const { name: _n, version: _v, dependencies, optionalDependencies, bin, engines, license } = pkg;
const appLock = {
  name: appPkg.name, version: appPkg.version, lockfileVersion: 3, requires: true,
  packages: {
    "": { name: appPkg.name, version: appPkg.version, dependencies: appPkg.dependencies, devDependencies: appPkg.devDependencies },
    "node_modules/rmqsim": {
      version: pkg.version, resolved: `file:../${info.filename}`, integrity: info.integrity, license,
      dependencies, ...(optionalDependencies ? { optionalDependencies } : {}), bin, engines,
    },
    ...lockClosure(Object.keys(dependencies), Object.keys(devTools)),
  },
};
writeFileSync(join(app, "package.json"), `${JSON.stringify(appPkg, null, 2)}\n`);
writeFileSync(join(app, "package-lock.json"), `${JSON.stringify(appLock, null, 2)}\n`);
run("npm ci --offline (tarball + its dependencies from the cache)", "npm", ["ci", "--offline", "--no-audit", "--no-fund", "--loglevel=error"]);
assert(!existsSync(join(app, "node_modules/rmqsim/src")), "the installed package has src/: the bin would not use dist/");

// ------------------------------------------------------------------------------------------ the bin
const version = run("rmqsim --version", "npx", ["--no-install", "rmqsim", "--version"]);
assert(version.stdout.trim() === pkg.version, `rmqsim --version printed ${JSON.stringify(version.stdout.trim())}, not ${pkg.version}`);
const scenarios = "node_modules/rmqsim/scenarios";
run("rmqsim validate (every shipped scenario)", "npx", ["--no-install", "rmqsim", "validate", `${scenarios}/default.json`, `${scenarios}/hung-message.json`, `${scenarios}/tune-pull-threshold.json`]);
// A short run whose report is complete: expectations written for the full 3 minutes are dropped.
run("rmqsim run (worker thread, charts, report.html)", "npx", ["--no-install", "rmqsim", "run", `${scenarios}/default.json`, "--duration", "5s", "--set", "expect=[]", "--out", "out/default", "--quiet"]);
for (const file of ["summary.json", "timeseries.csv", "report.html", "lag.png", "run.json"]) {
  assert(existsSync(join(app, "out/default", file)) && statSync(join(app, "out/default", file)).size > 0, `rmqsim run wrote no ${file}`);
}
const summary = JSON.parse(readFileSync(join(app, "out/default/summary.json"), "utf8"));
assert(summary.complete === true && summary.simulatedMs === 5000, `the run's summary says complete=${summary.complete}, simulatedMs=${summary.simulatedMs} (expected true, 5000)`);
// The quickest shipped scenario whose expectations hold (2 minutes of virtual time, about a second).
run("rmqsim check (pool worker thread, expectations)", "npx", ["--no-install", "rmqsim", "check", `${scenarios}/hung-message.json`, "--workers", "1"]);
run("rmqsim run with a bad option (exit 2)", "npx", ["--no-install", "rmqsim", "run", `${scenarios}/default.json`, "--duration", "soon"], { expectCode: 2 });

// ------------------------------------------------------------------------------- the typed API
// The same file is type-checked (strict, NodeNext resolution: what a service's own tsconfig would use),
// compiled, and run by Node on the package's compiled JavaScript.
writeFileSync(join(app, "tsconfig.json"), `${JSON.stringify({
  compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, types: ["node"], outDir: "build", skipLibCheck: false },
  files: ["api-check.ts"],
}, null, 2)}\n`);
writeFileSync(join(app, "api-check.ts"), `// Written by rmqsim's scripts/pack-test.mjs: the installed package's typed API, used as a service would.
import { check, explain, InputError, loadScenario, simulate, type CheckResult, type Scenario, type Simulation } from "rmqsim";

const scenario: Scenario = loadScenario("node_modules/rmqsim/scenarios/count-flow-control.json");
// The consumer is slower than the producer: count flow control caps each queue's cache at
// pullThresholdForQueue (200 here) plus one pull batch (32).
const run: Simulation = simulate(scenario, { duration: "20s", set: { "groups.0.config.pullThresholdForQueue": 200 } });
if (run.summary.simulatedMs !== 20_000) throw new Error(\`simulatedMs \${run.summary.simulatedMs}\`);
if (!(run.summary.cache.countPerQueueMax <= 200 + 32)) throw new Error(\`countPerQueueMax \${run.summary.cache.countPerQueueMax}\`);
if (!/^[0-9a-f]+$/.test(run.traceHash)) throw new Error(\`traceHash \${run.traceHash}\`);
const again = simulate(scenario, { duration: "20s", set: { "groups.0.config.pullThresholdForQueue": 200 } });
if (again.traceHash !== run.traceHash) throw new Error("the same run gave two trace hashes");

const verdict: CheckResult = check(scenario, { duration: "20s", expect: ["messages.lost == 0", "messages.lost > 0"] });
if (verdict.passed || verdict.failures.length === 0 || !verdict.failures.some((f) => f.includes("messages.lost > 0"))) {
  throw new Error(\`check: \${JSON.stringify(verdict.failures)}\`);
}
const why = explain(scenario, { duration: "20s", top: 1 });
if (why.queues.length !== 1) throw new Error(\`explain gave \${why.queues.length} queues\`);
try {
  simulate(scenario, { set: { "groups.0.config.pullBatchSize": 0 } });
  throw new Error("pullBatchSize 0 was accepted");
} catch (error) {
  if (!(error instanceof InputError) || !error.message.startsWith("groups.0.config.pullBatchSize")) throw error;
}
console.log(\`api ok: countPerQueueMax \${run.summary.cache.countPerQueueMax}, \${verdict.failures.length} failure(s), explain: \${why.queues[0]?.queue ?? "-"}\`);
`);
run("tsc (type-check and compile api-check.ts against dist/index.d.ts)", "npx", ["--no-install", "tsc", "-p", "."]);
const api = run("node build/api-check.js (the API from the tarball)", "node", ["build/api-check.js"]);
console.log(`pack-test: ${api.stdout.trim()}`);

// ------------------------------------------------------------------ the README's vitest example
// Run as the README prints it: the first ```ts block of its "Using rmqsim from code" section.
const readme = readFileSync(join(ROOT, "README.md"), "utf8");
const section = readme.indexOf("### Using rmqsim from code");
const block = section < 0 ? null : /```ts\n([\s\S]*?)\n```/.exec(readme.slice(section));
assert(block !== null, "README.md has no ```ts block under \"### Using rmqsim from code\"");
mkdirSync(join(app, "test"));
writeFileSync(join(app, "test", "consumer.test.ts"), `${block[1]}\n`);
writeFileSync(join(app, "vitest.config.ts"), 'import { defineConfig } from "vitest/config";\nexport default defineConfig({ test: { include: ["test/**/*.test.ts"], testTimeout: 60_000 } });\n');
const vitest = run("vitest run (the README's example, against the installed package)", "npx", ["--no-install", "vitest", "run", "--reporter=verbose"]);
const passed = /Tests\s+(\d+) passed/.exec(vitest.stdout.replace(/\x1b\[[0-9;]*m/g, ""));
assert(passed !== null && Number(passed[1]) >= 1, `vitest ran no test:\n${vitest.stdout}`);
console.log(`pack-test: README example: ${passed[1]} test(s) passed`);

if (keep) console.log(`pack-test: scratch project kept in ${work}`);
else rmSync(work, { recursive: true, force: true });
console.log(`pack-test: ok in ${((Date.now() - started) / 1000).toFixed(1)} s (${timings.map(([w, s]) => `${w.split(" (")[0]} ${s.toFixed(1)} s`).join(", ")})`);
