import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { normalizeScenario } from "../scenario/normalize.ts";
import { starterScenario } from "./initCommand.ts";
import { parseJsonText } from "./readJson.ts";
import { fakeEnv, run } from "./testEnv.ts";
import { validateFiles } from "./validateCommand.ts";

const README = new URL("../../README.md", import.meta.url);

describe("rmqsim init", () => {
  it("writes scenario.json by default: a commented JSONC scenario that validates, then prints the next commands", async () => {
    const env = fakeEnv();
    expect(await run(env, "init")).toBe(0);
    const file = join(env.cwd, "scenario.json");
    const text = readFileSync(file, "utf8");
    expect(text).toMatch(/^\/\/ A starter scenario/);
    expect(() => JSON.parse(text)).toThrow(); // comments: JSONC, not plain JSON
    const model = normalizeScenario(parseJsonText(text, "scenario.json"));
    expect(model.name).toBe("scenario");
    expect(model.expect).toEqual(["messages.lost == 0"]);
    expect(await validateFiles(["scenario.json"], env)).toEqual([{ file: "scenario.json", ok: true }]);
    expect(env.out()).toMatch(/^wrote scenario\.json: .*rmqsim validate: ok\nNext:\n  npx rmqsim run scenario\.json /);
    expect(env.out()).toMatch(/npx rmqsim sweep scenario\.json --param groups\.0\.config\.pullThresholdForQueue=/);
    expect(env.err()).toBe("");
  });

  it("comments every setting of the group's config and points $schema at the shipped schema", async () => {
    const env = fakeEnv();
    expect(await run(env, "init", "orders")).toBe(0);
    const text = readFileSync(join(env.cwd, "orders.json"), "utf8");
    const config = text.slice(text.indexOf('"config": {'), text.indexOf('"listener"'));
    const settings = config.split("\n").filter((l) => /^\s+"\w+": /.test(l));
    expect(settings.length).toBe(7);
    // consumeThreadMax shares consumeThreadMin's comment (the line above); every other setting has its own.
    expect(settings.filter((l) => !l.includes("//")).map((l) => l.trim())).toEqual(['"consumeThreadMax": 20,']);
    const schema = /"\$schema": "([^"]+)"/.exec(text)![1]!;
    const target = schema.startsWith("file:") ? new URL(schema) : resolve(env.cwd, schema);
    expect(existsSync(target)).toBe(true);
  });

  it("offers examples in its comments that validate too: expectations, a fault, a step and a ramp", () => {
    const text = starterScenario("x", null);
    const raw = parseJsonText(text, "x") as any;
    const examples = /More examples:\n\s*\/\/ (.*)\n/.exec(text)![1]!.match(/"[^"]+"/g)!.map((q) => JSON.parse(q) as string);
    expect(examples.length).toBe(3);
    expect(normalizeScenario({ ...raw, expect: examples }).expect).toEqual(examples);
    expect(() => normalizeScenario({ ...raw, faults: [{ kind: "consumerCrash", at: "1m", target: "OrdersConsumer/0" }] })).not.toThrow();
    for (const change of [{ at: "2m", rate: 500 }, { ramp: { from: 2000, to: 8000, over: "1m30s", at: "30s" } }]) {
      raw.topics[0].produce.rateChanges = [change];
      expect(() => normalizeScenario(raw), JSON.stringify(change)).not.toThrow();
    }
  });

  it("takes a path, adds .json once and names the scenario after the file", async () => {
    const env = fakeEnv();
    expect(await run(env, "init", "ci/scenarios/orders.json")).toBe(0);
    const text = readFileSync(join(env.cwd, "ci/scenarios/orders.json"), "utf8");
    expect(normalizeScenario(parseJsonText(text, "x")).name).toBe("orders");
    expect(text).toMatch(/"\$schema": "(\.\.\/)+|"\$schema": "file:/);
  });

  it("refuses to overwrite an existing file without --force (exit 2, file untouched); --force overwrites", async () => {
    const env = fakeEnv();
    writeFileSync(join(env.cwd, "scenario.json"), "mine");
    expect(await run(env, "init")).toBe(2);
    expect(env.err()).toBe("rmqsim: scenario.json: already exists; pass --force to overwrite it\n");
    expect(readFileSync(join(env.cwd, "scenario.json"), "utf8")).toBe("mine");
    expect(await run(env, "init", "--force")).toBe(0);
    expect(readFileSync(join(env.cwd, "scenario.json"), "utf8")).toMatch(/^\/\/ A starter scenario/);
  });

  it("refuses a name the scenario cannot have, before writing anything", async () => {
    const env = fakeEnv();
    expect(await run(env, "init", "my orders")).toBe(2);
    expect(env.err()).toMatch(/rmqsim: init my orders\.json: the file name makes the scenario name, which must be 1–127 characters/);
    expect(existsSync(join(env.cwd, "my orders.json"))).toBe(false);
  });

  it("writes a scenario that runs: 40 s with the burst (from 30 s) holds its expectation", async () => {
    const env = fakeEnv();
    expect(await run(env, "init", "starter")).toBe(0);
    expect(await run(env, "run", "starter.json", "--duration", "40s", "--no-charts", "--json")).toBe(0);
    const summary = JSON.parse(env.out().slice(env.out().indexOf("{")));
    // 30 s at 2 000 msg/s and 10 s at 12 000 msg/s: about 60 000 + 120 000 = 180 000 messages (Poisson: ± a few hundred).
    expect(summary.messages.produced).toBeGreaterThan(178_000);
    expect(summary.messages.produced).toBeLessThan(182_000);
    expect(summary.expectations).toMatchObject([{ ok: true }]);
  }, 60_000);
});

describe("README: the \"Writing a scenario\" template", () => {
  it("is accepted as-is by rmqsim validate (JSONC, comments and all)", async () => {
    const readme = readFileSync(README, "utf8");
    const section = readme.slice(readme.indexOf("## Writing a scenario"));
    const block = /```jsonc\n([\s\S]*?)```/.exec(section);
    expect(block, "a ```jsonc block under ## Writing a scenario").not.toBeNull();
    const env = fakeEnv();
    // The template says "$schema": "./schema.json": it sits where scenarios/ files do.
    writeFileSync(join(env.cwd, "template.json"), block![1]!);
    expect(await validateFiles(["template.json"], env)).toEqual([{ file: "template.json", ok: true }]);
  });
});
