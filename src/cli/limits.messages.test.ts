// Issue 15 items 1, 3 and 8 through the CLI: input that used to crash (exit 70, a stack overflow) or
// print a useless message is refused with exit 2 and one short line naming the field and the limit.
import { describe, expect, it } from "vitest";
import { fakeEnv, run, TINY_SCENARIO, writeScenario } from "./testEnv.ts";

type Json = any; // scenario edits

function scenarioWith(edit: (s: Json) => void): Json {
  const s = structuredClone(TINY_SCENARIO) as Json;
  edit(s);
  return s;
}

async function cli(content: unknown, ...args: string[]) {
  const env = fakeEnv();
  writeScenario(env.cwd, "s.json", content);
  const code = await run(env, ...args.map((a) => (a === "FILE" ? "s.json" : a)));
  return { code, out: env.out(), err: env.err() };
}

/** Exit 2, one line on stderr, no stack trace, at most `chars` characters. */
function expectOneLine(r: { code: number; err: string }, line: RegExp, chars = 400) {
  expect(r.code).toBe(2);
  expect(r.err).toMatch(/^rmqsim: [^\n]+\n$/);
  expect(r.err).toMatch(line);
  expect(r.err.length).toBeLessThanOrEqual(chars);
  expect(r.err).not.toMatch(/undefined|\[object Object\]|\n\s+at /);
}

describe("expectations: bounded length and nesting (item 1)", () => {
  it("5 000 parentheses, 20 000 minus signs and a 20 000-term sum are refused as too long, not a stack overflow", async () => {
    const cases = ["(".repeat(5000) + "1" + ")".repeat(5000) + " == 1", "-".repeat(20_000) + "1 == 1", Array(20_000).fill("1").join(" + ") + " == 20000"];
    for (const expression of cases) {
      const r = await cli(scenarioWith((s) => (s.expect = ["messages.lost == 0", expression])), "validate", "FILE");
      expectOneLine(r, /^rmqsim: s\.json: expect\.1: expression longer than 4096 characters \(it has \d+\) \(column 4097 of a \d+-character expression, here: "…/);
    }
  });

  it("65 nested parentheses are refused at the column of the 65th", async () => {
    const r = await cli(scenarioWith((s) => (s.expect = [`${"(".repeat(65)}messages.lost${")".repeat(65)} == 0`])), "validate", "FILE");
    expectOneLine(r, /^rmqsim: s\.json: expect\.0: expression nested deeper than 64 levels \(column 65 of /);
  });

  it("a flat sum of 2 000 terms within the limits runs and is evaluated", async () => {
    const r = await cli(scenarioWith((s) => (s.expect = [`${Array(2000).fill("1").join("+")} == 2000`])), "run", "FILE", "--quiet", "--duration", "1s");
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
  });

  it("sweep --require has the same bounds", async () => {
    const r = await cli(TINY_SCENARIO, "sweep", "FILE", "--param", "groups.0.config.pullBatchSize=16,32", "--require", `${"(".repeat(100)}throughput.consumedPerSec.mean${")".repeat(100)} > 0`);
    expectOneLine(r, /--require .*expression nested deeper than 64 levels \(column 65 of /, 1000);
  });
});

describe("instances: validation refuses what would overflow the scheduler (item 3)", () => {
  it("2049 instances of one group are refused, naming the field, the limit and why", async () => {
    const r = await cli(scenarioWith((s) => (s.groups[0].instances = 2049)), "validate", "FILE");
    expectOneLine(r, /^rmqsim: s\.json: groups\.0\.instances: 2049 is more than 2048, the most consumer instances a group may run .*NOTIFY_CONSUMER_IDS_CHANGED/);
  });

  it("with two brokers the limit is 1448, and a scale fault counts", async () => {
    const twoBrokers = (s: Json) => {
      s.brokers = [{ name: "broker-a" }, { name: "broker-b" }];
      s.topics[0].brokers = ["broker-a", "broker-b"];
    };
    const scaled = await cli(scenarioWith((s) => (twoBrokers(s), (s.faults = [{ kind: "scale", at: "1s", target: "G1", instances: 1449 }]))), "validate", "FILE");
    expectOneLine(scaled, /^rmqsim: s\.json: faults\.0\.instances: 1449 consumer instances with 2 broker nodes are more than the simulator can hold \(at most 1448 here\)/);
    const fits = await cli(scenarioWith((s) => (twoBrokers(s), (s.faults = [{ kind: "scale", at: "1s", target: "G1", instances: 1448 }]))), "validate", "FILE");
    expect(fits.code).toBe(0);
  });
});

describe("messages (item 8)", () => {
  it("a missing required field says missing", async () => {
    const r = await cli(scenarioWith((s) => delete s.topics[0].produce.rate), "validate", "FILE");
    expectOneLine(r, /^rmqsim: s\.json: topics\.0\.produce\.rate: missing; expected a number in \[0, 10000000\]\n$/);
    const at = await cli(scenarioWith((s) => (s.faults = [{ kind: "consumerCrash", target: "G1/0" }])), "validate", "FILE");
    expectOneLine(at, /^rmqsim: s\.json: faults\.0\.at: missing; expected a duration; use a number of ms or a string like/);
  });

  it("a 1 MB value is cut to 80 characters with its length, in a value and in a key", async () => {
    const big = "x".repeat(1_000_000);
    const value = await cli(scenarioWith((s) => (s.groups[0].consumeMode = big)), "validate", "FILE");
    expectOneLine(value, /^rmqsim: s\.json: groups\.0\.consumeMode: "x{78}… \(1000000 characters\) is not one of "CONCURRENTLY", "ORDERLY"\n$/);
    const key = await cli(scenarioWith((s) => (s.groups[0][big] = 1)), "validate", "FILE");
    expectOneLine(key, /^rmqsim: s\.json: groups\.0\.x{39}…: unknown key "x{78}… \(1000000 characters\); allowed: name, /);
  });

  it("--set 1e999 is not a finite number, named at the --set", async () => {
    const r = await cli(TINY_SCENARIO, "run", "FILE", "--set", "topics.0.produce.rate=1e999");
    expectOneLine(r, /^rmqsim: --set topics\.0\.produce\.rate: "1e999" is not a finite number \(JSON numbers end at ±1\.8e308\)\n$/);
  });

  it("a 5 000-level --set value is refused by the nesting limit, not a stack overflow", async () => {
    const r = await cli(TINY_SCENARIO, "run", "FILE", "--set", `groups.0.listener=${"[".repeat(5000)}${"]".repeat(5000)}`);
    expectOneLine(r, /^rmqsim: --set groups\.0\.listener: the value is nested deeper than 32 levels: no scenario field is\n$/);
  });

  it("a 5 000-level scenario file with a --set is refused naming the file, not a stack overflow in the override", async () => {
    const deep = JSON.stringify(TINY_SCENARIO).slice(0, -1) + `, "description": ${"[".repeat(5000)}${"]".repeat(5000)}}`;
    const r = await cli(deep, "run", "FILE", "--set", "seed=3");
    expectOneLine(r, /^rmqsim: s\.json: description(\.0)+: is nested deeper than 32 levels: not a scenario\n$/);
  });

  it("a bad name in a 3 000-character expression is shown by its column and an excerpt, not the whole expression", async () => {
    const expression = `messages.lost == 0 and ${"messages.lost + ".repeat(100)}bogus${" + messages.lost".repeat(100)} == 0`;
    const r = await cli(scenarioWith((s) => (s.expect = [expression])), "validate", "FILE");
    const column = expression.indexOf("bogus") + 1;
    expect(r.err).toContain(`(column ${column} of a ${expression.length}-character expression, here: "…${expression.slice(column - 41, column + 39)}…")\n`);
    expectOneLine(r, /^rmqsim: s\.json: expect\.0: unknown name "bogus"; /, 500);
  });
});
