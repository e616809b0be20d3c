import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { firstSentence, formatScenarioList } from "./listCommand.ts";
import { fakeEnv, run, TINY_SCENARIO, writeScenario } from "./testEnv.ts";

describe("rmqsim validate", () => {
  it("prints ok for each valid file and exits 0", async () => {
    const env = fakeEnv();
    writeScenario(env.cwd, "a.json", TINY_SCENARIO);
    writeScenario(env.cwd, "b.json", { ...TINY_SCENARIO, name: "b" });
    expect(await run(env, "validate", "a.json", "b.json")).toBe(0);
    expect(env.out()).toBe("ok  a.json\nok  b.json\n");
    expect(env.err()).toBe("");
  });

  it("reports every invalid file with its path and exits 2", async () => {
    const env = fakeEnv();
    writeScenario(env.cwd, "good.json", TINY_SCENARIO);
    writeScenario(env.cwd, "range.json", { ...TINY_SCENARIO, seed: -5 });
    writeScenario(env.cwd, "syntax.json", '{\n  "name": "x"\n  "seed": 1\n}');
    expect(await run(env, "validate", "good.json", "range.json", "syntax.json", "missing.json")).toBe(2);
    expect(env.out()).toBe("ok  good.json\n");
    expect(env.err()).toBe(
      "rmqsim: range.json: seed: -5 is out of range [0, 4294967295]\n" +
        "rmqsim: syntax.json:3:3: malformed JSON: expected ',' or '}' after a property value, found '\"'\n" +
        "rmqsim: missing.json: no such file\n",
    );
  });

  it("--json prints one verdict per file", async () => {
    const env = fakeEnv();
    writeScenario(env.cwd, "good.json", TINY_SCENARIO);
    expect(await run(env, "validate", "--json", "good.json", "nope.json")).toBe(2);
    expect(JSON.parse(env.out())).toEqual([
      { file: "good.json", ok: true },
      { file: "nope.json", ok: false, where: "nope.json", message: "no such file" },
    ]);
  });

  it("needs at least one file", async () => {
    const env = fakeEnv();
    expect(await run(env, "validate")).toBe(2);
    expect(env.err()).toBe("rmqsim: missing required argument 'files'\n");
  });

  it("accepts every scenario shipped in scenarios/ and skips the schema a glob picks up", async () => {
    const env = fakeEnv({ cwd: join(import.meta.dirname, "..", "..") });
    const files = readdirSync(join(env.cwd, "scenarios")).filter((f) => f.endsWith(".json")).sort();
    expect(files).toContain("schema.json");
    expect(await run(env, "validate", ...files.map((f) => `scenarios/${f}`))).toBe(0);
    expect(env.out()).toContain("skip  scenarios/schema.json (a JSON Schema, not a scenario)\n");
    expect(env.err()).toBe("");
  });
});

describe("rmqsim list", () => {
  it("lists name and first sentence of each .json but schema.json, in file-name order, in aligned columns", async () => {
    const env = fakeEnv();
    const dir = join(env.cwd, "scenarios");
    mkdirSync(dir);
    writeScenario(dir, "b.json", { ...TINY_SCENARIO, name: "slow-consumer", description: "consumers slower than producers. Look at lag.png." });
    writeScenario(dir, "a.json", { ...TINY_SCENARIO, name: "tiny" });
    writeScenario(dir, "schema.json", { title: "not a scenario" });
    writeScenario(dir, "notes.txt", "ignored");
    writeScenario(dir, "c.json", "{ broken");
    expect(await run(env, "list")).toBe(0);
    expect(env.out()).toBe(
      "tiny           ten seconds, one broker, one group\n" +
        "slow-consumer  consumers slower than producers.\n" +
        "c.json         (unreadable: c.json:1:3: malformed JSON: expected a double-quoted property name, found 'b')\n",
    );
  });

  it("takes a directory argument, and --json", async () => {
    const env = fakeEnv();
    mkdirSync(join(env.cwd, "mine"));
    writeScenario(join(env.cwd, "mine"), "t.json", TINY_SCENARIO);
    expect(await run(env, "list", "mine", "--json")).toBe(0);
    expect(JSON.parse(env.out())).toEqual([{ file: "t.json", name: "tiny", description: "ten seconds, one broker, one group" }]);
  });

  it("a missing directory exits 2; an empty one says so", async () => {
    const env = fakeEnv();
    expect(await run(env, "list", "nowhere")).toBe(2);
    expect(env.err()).toBe("rmqsim: nowhere: no such directory\n");
    mkdirSync(join(env.cwd, "empty"));
    const env2 = fakeEnv({ cwd: env.cwd });
    expect(await run(env2, "list", "empty")).toBe(0);
    expect(env2.err()).toBe("rmqsim: no scenario files (*.json) in empty\n");
  });

  it("formats nothing for no entries", () => {
    expect(formatScenarioList([])).toBe("");
  });

  it("shows the first sentence of a description, at most 100 characters", () => {
    expect(firstSentence("Steady state. Then more.")).toBe("Steady state.");
    expect(firstSentence("v1.2 is out")).toBe("v1.2 is out");
    expect(firstSentence("x".repeat(150))).toBe(`${"x".repeat(99)}…`);
  });
});
