// Test doubles for the CLI: an environment that records output, runs the engine inline with an
// injectable simulate and renderer, and lets a test play Ctrl-C. Used by src/cli/*.test.ts only.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { simulate as realSimulate } from "../run/simulate.ts";
import type { RenderFn, SimulateFn } from "./computeRun.ts";
import { inlineEngine } from "./engine.ts";
import { nodeFs, type CliEnv, type CliFs } from "./env.ts";
import { cli } from "./main.ts";

/** A ten-second scenario: runs in well under a second. */
export const TINY_SCENARIO = {
  $schema: "./schema.json",
  name: "tiny",
  description: "ten seconds, one broker, one group",
  duration: "10s",
  brokers: [{ name: "broker-a" }],
  topics: [{ name: "TopicTest", brokers: ["broker-a"], queuesPerBroker: 4, produce: { rate: 200 } }],
  groups: [{ name: "G1", instances: 2, subscribe: { TopicTest: "*" }, config: { pullBatchSize: 32 } }],
};

/** A renderer that writes only what the CLI reads back: summary.json and two stand-ins. */
export const fakeRender: RenderFn = async (result, options) => {
  const files = new Map<string, Uint8Array | string>();
  files.set("summary.json", `${JSON.stringify(result.summary, null, 2)}\n`);
  files.set("report.html", "<!doctype html><title>fake</title>\n");
  if (options.charts) files.set("throughput.png", new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
  if (options.traceJsonl !== undefined) files.set("trace.jsonl", options.traceJsonl);
  return files;
};

export interface FakeEnv extends CliEnv {
  out(): string;
  err(): string;
  /** Codes passed to exitNow. */
  exits: number[];
  /** Plays a Ctrl-C: calls every registered interrupt handler. */
  interrupt(): void;
}

export interface FakeEnvOptions {
  cwd?: string;
  simulate?: SimulateFn;
  render?: RenderFn;
  fs?: CliFs;
  isTTY?: boolean;
  /** The engine's memory reading (ComputeDeps.memoryOver); absent: memory is never over. */
  memoryOver?: (limitBytes: number) => string | null;
}

export function fakeEnv(options: FakeEnvOptions = {}): FakeEnv {
  let out = "";
  let err = "";
  let clockMs = 0;
  const handlers = new Set<() => void>();
  const exits: number[] = [];
  return {
    cwd: options.cwd ?? tempDir(),
    pid: 4242,
    stdout: { write: (t) => void (out += t) },
    stderr: { write: (t) => void (err += t), isTTY: options.isTTY ?? false, columns: 120 },
    fs: options.fs ?? nodeFs,
    // The fake clock advances 10 ms per reading, so wall times and rates are fixed numbers.
    engine: inlineEngine({
      simulate: options.simulate ?? realSimulate,
      render: options.render ?? fakeRender,
      nowMs: () => (clockMs += 10),
      nodeVersion: "v20.0.0-test",
      ...(options.memoryOver ? { memoryOver: options.memoryOver } : {}),
    }),
    now: () => new Date(Date.UTC(2025, 0, 1)),
    onInterrupt: (handler) => {
      handlers.add(handler);
      return () => void handlers.delete(handler);
    },
    exitNow: (code) => void exits.push(code),
    out: () => out,
    err: () => err,
    exits,
    interrupt: () => handlers.forEach((h) => h()),
  };
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "rmqsim-cli-"));
}

/** Writes `content` (JSON-encoded unless a string) to `dir/name` and returns the path. */
export function writeScenario(dir: string, name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  return path;
}

/** Runs the CLI with `args` (after "rmqsim"). */
export async function run(env: CliEnv, ...args: string[]): Promise<number> {
  return cli(["node", "rmqsim", ...args], env);
}
