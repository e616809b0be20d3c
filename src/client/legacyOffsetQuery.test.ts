// Offset-query failures per version (broker spec §10.4): what a newly assigned queue starts from when the
// broker answers QUERY_CONSUMER_OFFSET with an error (its consumer-manage pool overloaded: SYSTEM_BUSY) or
// does not answer at all, for 4.7 (4.7.1–4.8.0), 4.9 (4.9.8) and 5.x. One consumer of the tiny scenario,
// topic T with 2 queues of 1 000 messages each (max offset 1000); the group committed 400 on both.
import { describe, expect, it } from "vitest";
import { RequestCode, ResponseCode } from "../protocol/codes.ts";
import type { PullMessageRequest, QueryConsumerOffsetRequest } from "../protocol/commands.ts";
import type { Profile } from "../scenario/types.ts";
import { storedOffsetOf } from "./computePullFromWhere.ts";
import { MS, playBroker, requestsOf, serveBacklog, tinyConsumer } from "./testConsumer.ts";

const S = 1_000_000;
const T0 = 0; // queue 0 of T

function run(profile: Profile, where: "CONSUME_FROM_LAST_OFFSET" | "CONSUME_FROM_FIRST_OFFSET", failure: "error" | "timeout", untilUs = 100 * MS, mode?: "ORDERLY") {
  const b = tinyConsumer({ queues: 2, backlog: 1000, profile, consumeFromWhere: where, consumeMode: mode });
  b.c.start();
  let failed = 0;
  const hit = (r: { msg: { code: number }; cookie: number }) =>
    r.msg.code === RequestCode.QUERY_CONSUMER_OFFSET && (r.msg as unknown as QueryConsumerOffsetRequest).mq === T0 && failed++ === 0;
  playBroker(b, untilUs, {
    pull: serveBacklog(b),
    queue: () => ({ stored: 400 }),
    queryError: failure === "error" ? (mq, cookie) => (hit({ msg: { code: RequestCode.QUERY_CONSUMER_OFFSET, mq } as never, cookie }) ? ResponseCode.SYSTEM_BUSY : undefined) : undefined,
    lose: failure === "timeout" ? (r) => hit(r) : undefined,
  });
  const created = b.ctx.records("pqCreated", { mq: T0 }).map((r) => [r.tUs / MS, r.nextOffset]);
  return { b, created };
}

describe("storedOffsetOf: readOffset(READ_FROM_STORE) per version (broker spec §10.1–§10.3)", () => {
  it("SUCCESS is the offset; QUERY_NOT_FOUND is −1 everywhere; no answer is −2 everywhere", () => {
    for (const p of ["4.7", "4.9", "5.x"] as const) {
      expect(storedOffsetOf(p, ResponseCode.SUCCESS, 42)).toBe(42);
      expect(storedOffsetOf(p, ResponseCode.QUERY_NOT_FOUND, -1)).toBe(-1);
      expect(storedOffsetOf(p, null, -1)).toBe(-2);
    }
  });
  it("a broker error (SYSTEM_BUSY, SYSTEM_ERROR) is −1 ('no offset') up to 4.9, −2 (an error) from 5.0", () => {
    for (const code of [ResponseCode.SYSTEM_BUSY, ResponseCode.SYSTEM_ERROR]) {
      expect(storedOffsetOf("4.7", code, -1)).toBe(-1);
      expect(storedOffsetOf("4.9", code, -1)).toBe(-1);
      expect(storedOffsetOf("5.x", code, -1)).toBe(-2);
    }
  });
});

describe("a broker error on a new queue's offset query (§10.4, first column)", () => {
  // Heartbeats answered at 2 ms; %RETRY%G first (consumer ids 2 → 4, its query 4 → 6), then T: ids 6 → 8,
  // queries 8 → 10 ms.
  it("4.7 and 4.9, CONSUME_FROM_FIRST_OFFSET: the queue is treated as new and starts at 0 — a replay of the 400 consumed", () => {
    for (const p of ["4.7", "4.9"] as const) expect(run(p, "CONSUME_FROM_FIRST_OFFSET", "error").created).toEqual([[10, 0]]);
  });
  it("4.7 and 4.9, CONSUME_FROM_LAST_OFFSET: it starts at the max offset (1000) — the 600 not yet consumed are skipped", () => {
    for (const p of ["4.7", "4.9"] as const) expect(run(p, "CONSUME_FROM_LAST_OFFSET", "error").created).toEqual([[10, 1000]]);
  });
  it("5.x: the queue is skipped; the unbalanced rebalance a second later asks again and starts at the committed 400", () => {
    const { created } = run("5.x", "CONSUME_FROM_FIRST_OFFSET", "error", 3 * S);
    expect(created.length).toBe(1);
    expect(created[0]![1]).toBe(400);
    expect(created[0]![0]).toBeGreaterThan(1000);
  });
});

describe("a time-out (§10.4, second column): every version skips the queue until the next rebalance", () => {
  it("4.7 and 4.9 wait for the 20 s rebalance, then start at the committed 400", () => {
    for (const p of ["4.7", "4.9"] as const) {
      const { created } = run(p, "CONSUME_FROM_FIRST_OFFSET", "timeout", 30 * S);
      // The query at 12 ms times out at 5.012 s; the next rebalance 20 s after that run ended.
      expect(created.length).toBe(1);
      expect(created[0]![1]).toBe(400);
      expect(created[0]![0]).toBeGreaterThan(25_000);
    }
  });
  it("5.x retries a second after the run that timed out", () => {
    const { created } = run("5.x", "CONSUME_FROM_FIRST_OFFSET", "timeout", 30 * S);
    expect(created[0]![1]).toBe(400);
    expect(created[0]![0]).toBeLessThan(8_000);
  });
});

describe("the orderly first pull on a failure (§10.4, third column)", () => {
  // The rebalance's query succeeds (400); the first pull's second query is the one that fails.
  function firstPull(profile: Profile, failure: "error" | "timeout") {
    const b = tinyConsumer({ queues: 2, backlog: 1000, profile, consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET", consumeMode: "ORDERLY" });
    b.c.start();
    // Only the first of the first pull's queries on queue 0 fails (a negative cookie: −1 − pull request id).
    let failed = 0;
    const first = (mq: number, cookie: number) => mq === T0 && cookie < 0 && failed++ === 0;
    playBroker(b, 8 * S, {
      pull: serveBacklog(b),
      queue: () => ({ stored: 400 }),
      queryError: failure === "error" ? (mq, cookie) => (first(mq, cookie) ? ResponseCode.SYSTEM_BUSY : undefined) : undefined,
      lose: failure === "timeout" ? (r) => r.msg.code === RequestCode.QUERY_CONSUMER_OFFSET && first((r.msg as QueryConsumerOffsetRequest).mq, r.cookie) : undefined,
    });
    expect(failed).toBeGreaterThan(0);
    return requestsOf<PullMessageRequest>(b, RequestCode.PULL_MESSAGE).filter((r) => r.msg.mq === T0).map((r) => r.msg.queueOffset);
  }

  it("4.7 and 4.9, a broker error: the first-start value (FIRST → 0) is used: a replay from 0", () => {
    for (const p of ["4.7", "4.9"] as const) expect(firstPull(p, "error")[0]).toBe(0);
  });
  it("4.7 and 4.9, a time-out: the pull goes out at −1 (and the broker moves it to the min offset)", () => {
    for (const p of ["4.7", "4.9"] as const) expect(firstPull(p, "timeout")[0]).toBe(-1);
  });
  it("5.x: both retry 1 s later and keep the place (400)", () => {
    expect(firstPull("5.x", "error")[0]).toBe(400);
    expect(firstPull("5.x", "timeout")[0]).toBe(400);
  });
});

describe("broker FLOW_CONTROL on a pull (§4.4)", () => {
  it("4.9 and 5.x retry after 20 ms; 4.7 after the exception delay (1 000 ms)", async () => {
    const { answerPull, manualPullRequest, readyConsumer } = await import("./testConsumer.ts");
    for (const [p, ms] of [["4.7", 1000], ["4.9", 20], ["5.x", 20]] as const) {
      const b = readyConsumer({ profile: p });
      const pr = manualPullRequest(b, 0);
      b.c.pull.pullMessage(pr);
      answerPull(b, pr, ResponseCode.FLOW_CONTROL, { nextBeginOffset: 0 });
      expect(b.ctx.records("pullLater").map((r) => r.delayMs)).toEqual([ms]);
    }
  });
});
