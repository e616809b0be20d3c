// Resource guards: parsing and defaults, the up-front memory estimate, the memory readings, and
// --max-memory / --max-events through run, check and sweep (engine inline, memory reading faked).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { normalizeScenario } from "../scenario/normalize.ts";
import { InputError } from "../scenario/errors.ts";
import { SchedulerOverflowError } from "../sim/Scheduler.ts";
import { BadInputError, ResourceLimitError } from "./errors.ts";
import {
  defaultMaxMemory, estimateMemory, guardScenario, parseMaxEvents, parseMaxMemory, processMemoryOver, reportReserve, threadMemoryOver,
} from "./resourceGuards.ts";
import { fakeEnv, run, TINY_SCENARIO, writeScenario } from "./testEnv.ts";
import { reviveError, serialiseError } from "./workerMessages.ts";

const MiB = 1024 ** 2;
const GiB = 1024 ** 3;
type Json = any; // scenario edits

function withBacklog(backlog: number, groups = 1): Json {
  const s = structuredClone(TINY_SCENARIO) as Json;
  s.topics[0].produce.backlog = backlog;
  s.groups = Array.from({ length: groups }, (_, i) => ({ name: `G${i}`, instances: 1, subscribe: { TopicTest: "*" } }));
  return s;
}

describe("parseMaxMemory, parseMaxEvents, defaultMaxMemory", () => {
  it("reads binary sizes and refuses less than 64 MiB or decimal units", () => {
    expect(parseMaxMemory("2GiB")).toBe(2 * GiB);
    expect(parseMaxMemory("512MiB")).toBe(512 * MiB);
    expect(() => parseMaxMemory("1MiB")).toThrow(BadInputError);
    expect(() => parseMaxMemory("2GB")).toThrow(InputError);
    expect(() => parseMaxMemory("lots")).toThrow(/--max-memory/);
  });

  it("reads a whole number of events ≥ 1, with an exponent or _ separators", () => {
    expect(parseMaxEvents("1e6")).toBe(1_000_000);
    expect(parseMaxEvents("2_000")).toBe(2000);
    for (const bad of ["0", "1.5", "-3", "ten", "", "1e300"]) expect(() => parseMaxEvents(bad)).toThrow(/--max-events: must be a whole number/);
  });

  it("defaults to 75 % of the machine's memory, or of the cgroup's limit when that is lower", () => {
    expect(defaultMaxMemory(16 * GiB, undefined)).toBe(12 * GiB);
    expect(defaultMaxMemory(16 * GiB, 4 * GiB)).toBe(3 * GiB);
    // No cgroup limit reads as a huge number (or 0).
    expect(defaultMaxMemory(16 * GiB, 2 ** 64)).toBe(12 * GiB);
    expect(defaultMaxMemory(16 * GiB, 0)).toBe(12 * GiB);
    expect(defaultMaxMemory()).toBeGreaterThan(0);
  });

  it("keeps a quarter of the limit, at most 96 MiB, for writing the report; 1/16, at most 32 MiB, for a summary", () => {
    expect(reportReserve(300 * MiB)).toBe(75 * MiB);
    expect(reportReserve(16 * GiB)).toBe(96 * MiB);
    // check and sweep write only a summary: a smaller reserve.
    expect(reportReserve(320 * MiB, false)).toBe(20 * MiB);
    expect(reportReserve(16 * GiB, false)).toBe(32 * MiB);
  });
});

describe("guardScenario: the up-front estimate", () => {
  it("counts the backlog of every queue, with a fate per subscribing group", () => {
    const e = estimateMemory(normalizeScenario(withBacklog(1_000_000, 2)));
    expect(e.backlogMessages).toBe(4_000_000); // 4 queues
    expect(e.backlogBytes).toBe(4_000_000 * (48 + 2 * 4));
    expect(e.producedMessages).toBe(200 * 10); // 200 msg/s for 10 s
  });

  it("refuses a backlog that cannot fit before the first event (exit 3), naming the limit", () => {
    const model = normalizeScenario(withBacklog(100_000_000));
    expect(() => guardScenario(model, 2 * GiB, "s.json")).toThrow(ResourceLimitError);
    expect(() => guardScenario(model, 2 * GiB, "s.json")).toThrow(
      /^s\.json: the backlog of 400 000 000 messages needs about 19\.5 GiB before the first event, more than --max-memory 2\.0 GiB; raise --max-memory/,
    );
    expect(guardScenario(normalizeScenario(withBacklog(100_000)), 2 * GiB, "s.json")).toBeNull();
  });

  it("warns when what the producers could store is far beyond the limit, and not otherwise", () => {
    const fast = structuredClone(TINY_SCENARIO) as Json;
    fast.duration = "1h";
    fast.topics[0].produce.rate = 10_000_000;
    expect(guardScenario(normalizeScenario(fast), 2 * GiB, "fast.json")).toMatch(
      /^fast\.json: the producers may store 36 000 000 000 messages over the run \(about 536\.4 GiB if the consumers fall behind\), far beyond --max-memory 2\.0 GiB; if they do, the run stops early \(exit 3\)$/,
    );
    expect(guardScenario(normalizeScenario(TINY_SCENARIO), 2 * GiB, "tiny.json")).toBeNull();
  });
});

describe("memory readings", () => {
  it("run: the process's RSS against the limit", () => {
    const over = processMemoryOver(() => 300 * MiB);
    expect(over(512 * MiB)).toBeNull();
    expect(over(256 * MiB)).toBe("the process's resident memory reached 300.0 MiB");
  });

  it("check and sweep: a thread's own heap and external memory against its share, and the process's RSS against the whole", () => {
    const usage = { rss: 700 * MiB, heapTotal: 100 * MiB, external: 200 * MiB, heapUsed: 0, arrayBuffers: 0 };
    const over = threadMemoryOver(4, () => usage);
    expect(over(2 * GiB)).toBeNull(); // 300 MiB of a 512 MiB share; RSS 700 MiB of 2 GiB
    expect(over(1 * GiB)).toBe("this run's worker thread held 300.0 MiB, more than its share (1/4) 256.0 MiB");
    expect(threadMemoryOver(1, () => usage)(600 * MiB)).toBe("the process's resident memory reached 700.0 MiB");
  });
});

/** Says memory is over from the `after`-th reading on, recording the limits it was asked about. */
function memoryOverAfter(after: number) {
  const limits: number[] = [];
  return {
    limits,
    memoryOver: (limit: number) => {
      limits.push(limit);
      return limits.length >= after ? "the process's resident memory reached 9.9 GiB" : null;
    },
  };
}

describe("rmqsim run --max-memory / --max-events", () => {
  it("--max-memory: stops at the slice where memory is over, writes a partial report with the reason and exits 3", async () => {
    const mem = memoryOverAfter(4);
    const env = fakeEnv({ memoryOver: mem.memoryOver });
    writeScenario(env.cwd, "s.json", TINY_SCENARIO);
    expect(await run(env, "run", "s.json", "--out", "o", "--max-memory", "1GiB")).toBe(3);
    // The reading is compared with the limit less what is kept for writing the report.
    expect(mem.limits).toEqual([GiB - 96 * MiB, GiB - 96 * MiB, GiB - 96 * MiB, GiB - 96 * MiB]);
    const summary = JSON.parse(readFileSync(join(env.cwd, "o", "summary.json"), "utf8"));
    expect(summary).toMatchObject({ complete: false, stopReason: "maxMemory", simulatedMs: 4000 });
    expect(summary.stopDetail).toBe("the process's resident memory reached 9.9 GiB, past --max-memory 1.0 GiB less 96.0 MiB kept for writing the report, at 4 s of virtual time");
    expect(env.err()).toContain("rmqsim: the run stopped early (maxMemory: the process's resident memory reached 9.9 GiB");
    expect(env.err()).toContain("the report covers the first 4000 ms (exit 3)");
    expect(env.out()).toContain("INCOMPLETE (maxMemory)");
  });

  it("--max-memory: a run that stays below it is complete and unchanged", async () => {
    const plain = fakeEnv();
    writeScenario(plain.cwd, "s.json", TINY_SCENARIO);
    expect(await run(plain, "run", "s.json", "--out", "o", "--json", "-q")).toBe(0);
    const mem = memoryOverAfter(Infinity);
    const guarded = fakeEnv({ memoryOver: mem.memoryOver });
    writeScenario(guarded.cwd, "s.json", TINY_SCENARIO);
    expect(await run(guarded, "run", "s.json", "--out", "o", "--json", "-q", "--max-memory", "1GiB")).toBe(0);
    expect(mem.limits.length).toBeGreaterThanOrEqual(10); // at least once per sample interval
    expect(guarded.out()).toBe(plain.out());
  });

  it("--max-events: stops at exactly that many events, exit 3, stopReason maxEvents — even with --quiet it says why", async () => {
    const env = fakeEnv();
    writeScenario(env.cwd, "s.json", TINY_SCENARIO);
    expect(await run(env, "run", "s.json", "--out", "o", "--max-events", "5000", "-q")).toBe(3);
    const summary = JSON.parse(readFileSync(join(env.cwd, "o", "summary.json"), "utf8"));
    expect(summary).toMatchObject({ complete: false, stopReason: "maxEvents", events: 5000 });
    expect(summary.stopDetail).toMatch(/^reached the limit of 5000 events \(maxEvents\) at [\d.]+ s of virtual time$/);
    expect(env.err()).toMatch(/^rmqsim: the run stopped early \(maxEvents: reached the limit of 5000 events/);
    expect(env.out()).toBe("");
  });

  it("refuses a backlog beyond --max-memory before building anything: exit 3, one line, no report", async () => {
    const env = fakeEnv();
    writeScenario(env.cwd, "s.json", withBacklog(100_000_000));
    expect(await run(env, "run", "s.json", "--out", "o", "--max-memory", "2GiB")).toBe(3);
    expect(env.err()).toMatch(/^rmqsim: s\.json: the backlog of 400 000 000 messages needs about 19\.5 GiB before the first event, more than --max-memory 2\.0 GiB[^\n]*\n$/);
    expect(existsSync(join(env.cwd, "o"))).toBe(false);
  });

  it("warns up front on stderr (not with --quiet) when the producers could outgrow the limit", async () => {
    const fast = structuredClone(TINY_SCENARIO) as Json;
    fast.duration = "1h";
    fast.topics[0].produce.rate = 10_000_000;
    const env = fakeEnv();
    writeScenario(env.cwd, "s.json", fast);
    // --max-events 1 keeps the run itself short.
    expect(await run(env, "run", "s.json", "--out", "o", "--max-memory", "1GiB", "--max-events", "1", "--no-charts")).toBe(3);
    expect(env.err().split("\n")[0]).toMatch(/^rmqsim: warning: s\.json: the producers may store 36 000 000 000 messages over the run/);
    const quiet = fakeEnv();
    writeScenario(quiet.cwd, "s.json", fast);
    expect(await run(quiet, "run", "s.json", "--out", "o", "--max-memory", "1GiB", "--max-events", "1", "-q")).toBe(3);
    expect(quiet.err()).not.toContain("warning");
  });

  it("bad limits exit 2 naming the option", async () => {
    for (const [flag, value, re] of [["--max-memory", "12", /--max-memory: "12" has no unit/], ["--max-events", "1.5", /--max-events: must be a whole number/]] as const) {
      const env = fakeEnv();
      writeScenario(env.cwd, "s.json", TINY_SCENARIO);
      expect(await run(env, "run", "s.json", flag, value)).toBe(2);
      expect(env.err()).toMatch(re);
    }
  });
});

describe("rmqsim check and sweep honour the guards", () => {
  function failing(): Json {
    const s = structuredClone(TINY_SCENARIO) as Json;
    s.name = "failing";
    s.duration = "1s";
    s.expect = ["messages.produced == 0"];
    return s;
  }

  it("check: a run a guard stopped fails (exit 3) with the reason, its expectations unjudged, and writes no baseline", async () => {
    const env = fakeEnv();
    writeScenario(env.cwd, "tiny.json", { ...TINY_SCENARIO, expect: ["messages.lost == 0"] });
    expect(await run(env, "check", "tiny.json", "--max-events", "5000", "--baseline", "b", "--update-baseline")).toBe(3);
    const out = env.out();
    expect(out).toMatch(/^FAIL {2}tiny \(seed 1\)/);
    expect(out).toMatch(/ {6}error: stopped early \(maxEvents\): reached the limit of 5000 events \(maxEvents\) at /);
    expect(out).toContain("expectations not judged: the run is incomplete");
    expect(out).not.toContain("✓ messages.lost == 0");
    expect(out).toContain("0 passed, 1 failed");
    expect(existsSync(join(env.cwd, "b", "tiny.seed-1.summary.json"))).toBe(false);
  });

  it("check --determinism: runs a guard stopped get no determinism verdict, only the guard's error", async () => {
    const env = fakeEnv();
    writeScenario(env.cwd, "tiny.json", TINY_SCENARIO);
    expect(await run(env, "check", "tiny.json", "--max-events", "5000", "--determinism")).toBe(3);
    expect(env.out()).toContain("error: stopped early (maxEvents)");
    expect(env.out()).not.toContain("deterministic");
  });

  it("check: --max-memory stops a run the same way; a definite failure elsewhere still exits 1", async () => {
    const env = fakeEnv({ memoryOver: memoryOverAfter(3).memoryOver });
    writeScenario(env.cwd, "a.json", TINY_SCENARIO);
    expect(await run(env, "check", "a.json", "--max-memory", "1GiB", "--json")).toBe(3);
    const [r] = JSON.parse(env.out());
    expect(r).toMatchObject({ scenario: "tiny", complete: false });
    expect(r.error).toMatch(/^stopped early \(maxMemory\): the process's resident memory reached 9\.9 GiB, past --max-memory 1\.0 GiB less 32\.0 MiB kept for the summary, at 3 s/);

    const mixed = fakeEnv();
    writeScenario(mixed.cwd, "a.json", TINY_SCENARIO);
    writeScenario(mixed.cwd, "b.json", failing());
    // 2000 events stop the ten-second run (~8 000 events) but not the one-second one (~760), which fails.
    expect(await run(mixed, "check", "a.json", "b.json", "--max-events", "2000")).toBe(1);
    expect(mixed.out()).toMatch(/FAIL {2}tiny \(seed 1\)[^\n]*\n {6}error: stopped early \(maxEvents\)/);
    expect(mixed.out()).toMatch(/FAIL {2}failing \(seed 1\)[^\n]*\n {2}✗ messages\.produced == 0/);
  });

  it("check: a backlog beyond the worker's share is refused without running, and the other scenarios still run", async () => {
    const env = fakeEnv();
    writeScenario(env.cwd, "big.json", { ...withBacklog(100_000_000), name: "big" });
    writeScenario(env.cwd, "tiny.json", TINY_SCENARIO);
    expect(await run(env, "check", "big.json", "tiny.json", "--max-memory", "2GiB", "--workers", "2")).toBe(3);
    expect(env.out()).toMatch(/FAIL {2}big \(seed 1\)[^\n]*\n {6}error: refused: big\.json: the backlog of 400 000 000 messages needs about 19\.5 GiB before the first event, more than 1\.0 GiB, a run's share \(1\/2\) of --max-memory 2\.0 GiB; raise --max-memory/);
    expect(env.out()).toMatch(/PASS {2}tiny \(seed 1\)/);
  });

  it("sweep: runs a guard stopped are left out, named on stderr, and the sweep exits 3", async () => {
    const env = fakeEnv();
    writeScenario(env.cwd, "s.json", TINY_SCENARIO);
    const code = await run(env, "sweep", "s.json", "--param", "groups.0.config.pullThresholdForQueue=10,1000", "--max-events", "5000", "--no-charts", "--out", "o", "-q");
    expect(code).toBe(3);
    expect(env.err()).toMatch(/^rmqsim: 2 of 2 runs stopped early and are left out of the result:\n {2}point 0, seed 1: maxEvents: reached the limit of 5000 events/);
    const result = JSON.parse(readFileSync(join(env.cwd, "o", "sweep.json"), "utf8"));
    expect(result.complete).toBe(false);
  });

  it("sweep: a point whose backlog cannot fit stops the sweep before any run (exit 3)", async () => {
    const env = fakeEnv();
    writeScenario(env.cwd, "s.json", TINY_SCENARIO);
    const code = await run(env, "sweep", "s.json", "--param", "topics.0.produce.backlog=10,100000000", "--max-memory", "2GiB", "--workers", "1", "--out", "o");
    expect(code).toBe(3);
    expect(env.err()).toMatch(/^rmqsim: s\.json with topics\.0\.produce\.backlog=100000000: the backlog of 400 000 000 messages/);
    expect(existsSync(join(env.cwd, "o"))).toBe(false);
  });
});

describe("a scheduler overflow inside one event", () => {
  it("crosses from a worker as a resource limit and exits 3 with one line, no stack", async () => {
    const overflow = new SchedulerOverflowError("Scheduler: more than 3 932 160 pending events at 0.012 s of virtual time: deliverToClient 4 194 304; one event scheduled more than 262 144 others");
    const crossed = reviveError(serialiseError(overflow));
    expect(crossed).toBeInstanceOf(ResourceLimitError);
    expect(crossed.message).toBe(overflow.message);
    const env = fakeEnv({ simulate: () => { throw overflow; } });
    writeScenario(env.cwd, "s.json", TINY_SCENARIO);
    expect(await run(env, "run", "s.json", "--out", "o")).toBe(3);
    expect(env.err()).toBe(`rmqsim: ${overflow.message}\n`);
  });
});
