import { describe, expect, it } from "vitest";
import { compileDist } from "../scenario/distributions.ts";
import { Scheduler } from "./Scheduler.ts";
import { hashUniform, RandomStreams } from "./streams.ts";
import { Trace } from "./Trace.ts";

interface RunSummary {
  hash: string;
  records: number;
  events: number;
}

/**
 * A small model on the kernel: PLAYERS components pass BALLS balls around. A player holds a ball for
 * a delay drawn from its own stream, then passes it to a player chosen from another stream; a
 * hashUniform-derived "spin" makes some passes take a second, zero-delay bounce. Every hand-off is
 * traced. Ties at equal times are common, so the (atUs, seq) order matters.
 */
function runPingPong(seed: number, options: { capture?: boolean; untilUsSteps?: readonly number[] } = {}): RunSummary {
  const PLAYERS = 5;
  const BALLS = 3;
  const scheduler = new Scheduler({ maxEvents: 1_000_000 });
  const streams = new RandomStreams(seed);
  const trace = new Trace();
  const holdTime = compileDist({ dist: "empirical", values: [["0us", 1], ["1ms", 3], ["2ms", 3], ["5ms", 1]] }, "duration", "hold");
  const holdRngs = Array.from({ length: PLAYERS }, (_, p) => streams.get(`player/${p}/hold`));
  const passRngs = Array.from({ length: PLAYERS }, (_, p) => streams.get(`player/${p}/pass`));
  const passCounts = new Float64Array(BALLS);
  const CATCH = trace.defineType("catch", ["player", "ball", "pass"]);
  const BOUNCE = trace.defineType("bounce", ["player", "ball"]);
  if (options.capture === true) trace.setCapture((type) => type === BOUNCE);

  let pass: number;
  const bounce = scheduler.defineKind("bounce", (player, ball) => {
    trace.emit(BOUNCE, scheduler.nowUs, player, ball);
  });
  const receive = scheduler.defineKind("receive", (player, ball) => {
    const passNo = ++passCounts[ball]!;
    trace.emit(CATCH, scheduler.nowUs, player, ball, passNo);
    if (hashUniform(seed, ball, passNo, player) < 0.1) scheduler.scheduleIn(0, bounce, player, ball);
    scheduler.scheduleIn(holdTime.sample(holdRngs[player]!), pass, player, ball);
  });
  pass = scheduler.defineKind("pass", (player, ball) => {
    const offset = 1 + Math.floor(passRngs[player]!() * (PLAYERS - 1));
    scheduler.scheduleIn(1_000, receive, (player + offset) % PLAYERS, ball);
  });

  for (let ball = 0; ball < BALLS; ball++) scheduler.scheduleAt(0, receive, ball % PLAYERS, ball);
  for (const untilUs of options.untilUsSteps ?? [10_000_000]) {
    expect(scheduler.runUntil(untilUs)).toBe("until");
    expect(scheduler.nowUs).toBe(untilUs);
  }
  return { hash: trace.hash(), records: trace.count, events: scheduler.eventsRun };
}

describe("determinism of a model on the kernel", () => {
  it("gives the same trace hash for two runs with the same seed", () => {
    const first = runPingPong(42);
    const second = runPingPong(42);
    expect(first.records).toBeGreaterThan(10_000);
    expect(second).toEqual(first);
  });

  it("gives a different trace hash for a different seed", () => {
    expect(runPingPong(43).hash).not.toBe(runPingPong(42).hash);
  });

  it("gives the same hash with trace capture on", () => {
    expect(runPingPong(42, { capture: true }).hash).toBe(runPingPong(42).hash);
  });

  it("gives the same hash when the run is split into several runUntil calls", () => {
    // Hand-offs happen on whole milliseconds, so these boundaries land exactly on event times and
    // exercise the inclusive-until rule: an event at a boundary runs in the earlier call, once.
    const split = runPingPong(42, { untilUsSteps: [0, 1_000, 2_000, 2_500, 7_000, 1_000_000, 10_000_000] });
    expect(split).toEqual(runPingPong(42));
  });
});
