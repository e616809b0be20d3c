// `rmqsim init [name] [--force]`: writes name.json (default scenario.json), a starter scenario in JSONC
// with a comment on every field a user tunes first, then validates the written file with the code of
// `rmqsim validate` and prints the commands to try next. The file is never overwritten without --force.
import { basename, dirname, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { InputError } from "../scenario/errors.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import type { CliEnv } from "./env.ts";
import { BadInputError, EXIT } from "./errors.ts";
import { parseJsonText } from "./readJson.ts";
import { validateFiles } from "./validateCommand.ts";

export const INIT_DEFAULT_NAME = "scenario";

export interface InitOptions {
  /** A scenario name or a path: "orders", "ci/orders", "orders.json". */
  name?: string;
  force: boolean;
}

/** The package's schema, for the "$schema" line that gives editors completion (absent in a bare copy of the CLI). */
const SCHEMA_FILE = fileURLToPath(new URL("../../scenarios/schema.json", import.meta.url));

/**
 * The starter scenario. The burst outruns the consumers on purpose: 2 instances × 20 threads at
 * ≈ 4.2 ms a message (the mean of a lognormal with median 3 ms and p99 20 ms: 3 ms × e^(σ²/2), σ =
 * ln(20/3) / 2.326) drain ≈ 9 500 msg/s, so a minute at 12 000 msg/s leaves a backlog to drain and a
 * first run shows lag and flow control at work instead of flat lines.
 */
export function starterScenario(name: string, schema: string | null): string {
  const schemaLine = schema === null ? "" : `\n  "$schema": ${JSON.stringify(schema)},  // lets your editor complete and check every field`;
  return `// A starter scenario for rmqsim, written by \`rmqsim init\`. It is JSONC: comments and trailing commas
// are fine. Durations: "200us", "50ms", "1.5s", "10m", "1h30m" or a number of ms. Sizes: "512B", "1KiB",
// "100MiB". Every field and its default: the README's "Writing a scenario" and scenarios/schema.json.
{${schemaLine}
  "name": ${JSON.stringify(name)},  // names the report folder: reports/${name}/
  "description": "2 000 msg/s with a minute at 12 000 msg/s; two consumer instances build a backlog and drain it.",
  "seed": 1,                      // same scenario + same seed = the same results; check --seeds 5 tries others
  "duration": "3m",               // virtual time; run --duration 1m runs a shorter one
  "profile": "4.9",               // client behaviour: "4.9" (4.9.8), "5.x" (5.2+) or "4.7" (4.7.1–4.8.0)

  "brokers": [
    { "name": "broker-a" },       // RocketMQ's broker defaults: long polling, maxMessageSize 4 MiB
  ],
  "network": {
    "latency": { "dist": "lognormal", "median": "300us", "p99": "2ms" },  // one way, client ↔ broker
  },

  "topics": [{
    "name": "Orders",
    "brokers": ["broker-a"],
    "queuesPerBroker": 8,         // MessageQueues per broker: more instances than queues sit idle
    "produce": {
      "rate": 2000,               // messages per second for the whole topic
      "bodyBytes": "1KiB",        // or a distribution: { "dist": "lognormal", "median": "2KiB", "p99": "64KiB", "max": "4MiB" }
      "rateChanges": [
        // 12 000 msg/s from 30s for one minute, then back to 2 000. Also: steps { "at": "2m", "rate": 500 }
        // and ramps { "ramp": { "from": 2000, "to": 8000, "over": "1m30s", "at": "30s" } }.
        { "burst": { "at": "30s", "rate": 12000, "for": "1m" } },
      ],
    },
  }],

  "groups": [{
    "name": "OrdersConsumer",
    "instances": 2,               // consumer processes; CLUSTERING shares the queues among them
    "subscribe": { "Orders": "*" },  // topic → tag expression: "*" or "TagA || TagB"
    "consumeFromWhere": "CONSUME_FROM_LAST_OFFSET",
    // DefaultMQPushConsumer settings with RocketMQ's names, units and defaults; the ones tuned first:
    "config": {
      "consumeThreadMin": 20,     // listener threads per instance (the pool never grows past Min)
      "consumeThreadMax": 20,
      "pullBatchSize": 32,        // messages asked for per pull
      "pullThresholdForQueue": 1000,           // messages cached per queue before pulls pause (count flow control)
      "pullThresholdSizeForQueue": "100MiB",   // bodies cached per queue before pulls pause (size flow control)
      "consumeMessageBatchMaxSize": 1,         // messages per listener call
      "maxReconsumeTimes": -1,    // re-deliveries before the DLQ; -1 = 16
    },
    "listener": {
      "consumeTime": { "dist": "lognormal", "median": "3ms", "p99": "20ms" },  // per message: your handler's time
      "failureProbability": 0.0,  // chance a call returns RECONSUME_LATER (re-delivered after a delay level)
    },
  }],

  // Faults to inject, e.g. { "kind": "consumerCrash", "at": "1m", "target": "OrdersConsumer/0" }.
  "faults": [],

  // What must hold: rmqsim run and check exit 1 when an expectation fails. More examples:
  // "max(lag.committed) < 500000", "latency.endToEnd.p99Ms < 30s", "mean(throughput.consumed, 2m..) >= 1900".
  "expect": [
    "messages.lost == 0",
  ],
}
`;
}

export async function initCommand(options: InitOptions, env: Pick<CliEnv, "fs" | "cwd" | "stdout">): Promise<number> {
  const given = options.name ?? INIT_DEFAULT_NAME;
  if (given.trim() === "") throw new BadInputError("init", "the name is empty; give a scenario name such as orders, or leave it out for scenario.json");
  const shown = given.endsWith(".json") ? given : `${given}.json`;
  const file = resolve(env.cwd, shown);
  const name = basename(file, ".json");
  const kind = await env.fs.kind(file);
  if (kind === "dir") throw new BadInputError(shown, "is a directory; give a file name");
  if (kind !== "missing" && !options.force) throw new BadInputError(shown, "already exists; pass --force to overwrite it");

  const schema = (await env.fs.kind(SCHEMA_FILE)) === "file" ? schemaReference(env.cwd, dirname(file)) : null;
  const text = starterScenario(name, schema);
  checkName(text, shown);
  await env.fs.mkdir(dirname(file));
  await env.fs.writeFile(file, text);

  // The same check as `rmqsim validate`: the file as written, read back from disk.
  const [verdict] = await validateFiles([shown], env);
  if (verdict === undefined || !verdict.ok) throw new Error(`the starter scenario does not validate: ${verdict?.where}: ${verdict?.message}`);
  const arg = shellWord(shown);
  env.stdout.write(
    `wrote ${shown}: a starter scenario with a comment on each field (JSONC); rmqsim validate: ok\n` +
      "Next:\n" +
      `  npx rmqsim run ${arg}                  # simulate it; the report goes to reports/${name}/ (open report.html)\n` +
      `  npx rmqsim run ${arg} --duration 1m    # a shorter run\n` +
      `  npx rmqsim check ${arg} --seeds 3      # its expectations under 3 seeds (exit 1 if one fails)\n` +
      `  npx rmqsim explain ${arg}              # why queues stopped or slowed\n` +
      `  npx rmqsim sweep ${arg} --param groups.0.config.pullThresholdForQueue=100,500,1000 --seeds 3\n`,
  );
  return EXIT.ok;
}

/** The scenario name comes from the file name; a name the validator refuses is refused before anything is written. */
function checkName(text: string, shown: string): void {
  try {
    normalizeScenario(parseJsonText(text, shown));
  } catch (error) {
    if (error instanceof InputError && error.path === "name") {
      throw new BadInputError(`init ${shown}`, `the file name makes the scenario name, which ${error.reason.replace(/^".*?" /, "")}`);
    }
    throw error;
  }
}

/**
 * "$schema" relative to the scenario's folder (forward slashes, from ./ or ../) when the schema lies
 * inside the working directory — a checkout, or node_modules/rmqsim — so the file can be committed;
 * otherwise (rmqsim installed elsewhere) a file URL.
 */
function schemaReference(cwd: string, from: string): string {
  if (relative(cwd, SCHEMA_FILE).startsWith("..")) return pathToFileURL(SCHEMA_FILE).href;
  const rel = relative(from, SCHEMA_FILE).split(sep).join("/");
  return rel.startsWith("../") ? rel : `./${rel}`;
}

/** A path as a shell word: quoted when it holds anything but safe characters. */
function shellWord(path: string): string {
  return /^[A-Za-z0-9_./@%+=:,-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}
