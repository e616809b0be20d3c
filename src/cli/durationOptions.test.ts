// Compound durations ("1h30m", "3m30s") reach every command-line option that takes a duration: they all
// go through parseDurationUs (src/scenario/units.ts).
import { describe, expect, it } from "vitest";
import { parseExplainArgs } from "./explainCommand.ts";
import { parseCheckEvery, parseDurationOption } from "./overrides.ts";
import { fakeEnv, run, TINY_SCENARIO, writeScenario } from "./testEnv.ts";

describe("duration options take compound durations", () => {
  it("--duration and --check-every", () => {
    expect(parseDurationOption("1h30m")).toBe("1h30m"); // validated, kept as written (the report's input says what ran)
    expect(parseCheckEvery("1m30s")).toBe(90_000_000);
  });

  it("explain --at, --window and --duration", () => {
    // --at 2m30s = 150 s; --window 1m0.5s = 60.5 s; --duration 5h15m = 18 900 s.
    expect(parseExplainArgs({ scenario: "s.json", at: "2m30s", window: "1m0.5s", duration: "5h15m" })).toMatchObject({
      atUs: 150_000_000, windowUs: 60_500_000, durationUs: 18_900_000_000,
    });
  });

  it("a bad compound duration names the option and the accepted forms (exit 2)", async () => {
    const env = fakeEnv();
    writeScenario(env.cwd, "s.json", TINY_SCENARIO);
    expect(await run(env, "run", "s.json", "--duration", "30s1m")).toBe(2);
    expect(env.err()).toMatch(/^rmqsim: --duration: "30s1m" is not a duration: the units of a compound duration go largest first .*"1h30m", "3m30s", "1m0\.5s"\n$/);
  });

  it("rmqsim run --duration 0m2.5s simulates 2.5 s", async () => {
    const env = fakeEnv();
    writeScenario(env.cwd, "s.json", TINY_SCENARIO);
    expect(await run(env, "run", "s.json", "--duration", "0m2.5s", "--json", "--no-charts")).toBe(0);
    expect(JSON.parse(env.out()).simulatedMs).toBe(2500);
  });
});
