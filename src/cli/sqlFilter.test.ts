// A SQL92 subscription's syntax error is bad input at load time: exit 2, naming the field and the position,
// for `validate` (which only loads) and `run` alike.
import { describe, expect, it } from "vitest";
import { fakeEnv, run, TINY_SCENARIO, writeScenario } from "./testEnv.ts";

const withSql = (sql: string) => ({
  ...TINY_SCENARIO,
  brokers: [{ name: "broker-a", config: { enablePropertyFilter: true } }],
  groups: [{ name: "G1", subscribe: { TopicTest: { sql } } }],
});

describe("SQL92 subscriptions at load time", () => {
  it("validate: exit 2 with the field path and the 0-based position", async () => {
    const env = fakeEnv();
    // "a >> 5": the second ">" (index 3) cannot start an operand.
    writeScenario(env.cwd, "bad.json", withSql("a >> 5"));
    writeScenario(env.cwd, "good.json", withSql("a > 5 AND region IN ('eu', 'us')"));
    expect(await run(env, "validate", "good.json", "bad.json")).toBe(2);
    expect(env.out()).toBe("ok  good.json\n");
    expect(env.err()).toMatch(/^rmqsim: bad\.json: groups\.0\.subscribe\.TopicTest\.sql: SQL92 syntax error at position 3 \(0-based\) of "a >> 5": /);
    expect(env.err()).not.toMatch(/\n\s+at /); // no stack
  });

  it("run: exit 2 before anything runs", async () => {
    const env = fakeEnv();
    writeScenario(env.cwd, "bad.json", withSql("region = "));
    expect(await run(env, "run", "bad.json")).toBe(2);
    expect(env.err()).toMatch(/groups\.0\.subscribe\.TopicTest\.sql: SQL92 syntax error at position 9 \(0-based\)/);
  });
});
