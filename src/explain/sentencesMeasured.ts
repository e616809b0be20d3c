// Sentences and advice for the reasons measured by the capture's aggregate (pool saturation, failed
// send-backs, delaying holds) and for pull-expiry recreation; sentences.ts dispatches here.
import type { GroupModel, Model } from "../scenario/types.ts";
import { CLIENT_CONSTANTS } from "../scenario/defaults.ts";
import type { RawInterval } from "./intervals.ts";
import { formatCount as n, formatTimeUs as t } from "./format.ts";
import { REASON, type SettingAdvice } from "./types.ts";

export interface Told {
  sentence: string;
  settings: SettingAdvice[];
}

/** "s" as a number of seconds with one decimal, from ms. */
function sec(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** The clause naming the pool as the cause of count/size flow control, or "" when it was not full. */
export function poolCause(f: Record<string, number | string>): string {
  if (f.poolSaturated !== 1) return f.poolThreads !== undefined ? ` The consume pool was not full (${f.poolBusyMean} of ${f.poolThreads} threads busy on average): the listener's own pace is the limit.` : "";
  return ` The cache fills because all ${f.poolThreads} consume threads are busy (${f.poolBusyMean} on average); requests wait ${sec(f.poolWaitMeanMs as number)} in the executor queue (up to ${sec(f.poolWaitMaxMs as number)}).`;
}

export function describeMeasured(i: RawInterval, span: string, moved: string, model: Model, g: GroupModel): Told | undefined {
  const f = i.figures;
  switch (i.reason) {
    case REASON.poolSaturated: {
      const stuck = (f.poolStarted as number) === 0;
      const fault = f.fault !== undefined ? ` (fault ${f.fault})` : "";
      return {
        sentence: stuck
          ? `${span}: all ${f.poolThreads} consume threads of ${f.consumer} were inside listener calls that did not return${fault}; no message started, the rest wait in the executor queue; ${moved}.`
          : `${span}: all ${f.poolThreads} consume threads of ${f.consumer} were busy (${f.poolBusyMean} on average)${fault}; ${n(f.poolStarted as number)} messages started after waiting ${sec(f.poolWaitMeanMs as number)} on average (up to ${sec(f.poolWaitMaxMs as number)}) in the executor queue, which is unbounded, so flow control has not stopped the pulls yet; ${moved}.`,
        settings: [
          { setting: "consumeThreadMin", direction: "raise", effect: `(now ${g.config.consumeThreadMin}) the pool's size: consumeThreadMax has no effect, the executor's queue is unbounded (spec §6)` },
          { setting: "pullThresholdForQueue", direction: "lower", effect: `(now ${g.config.pullThresholdForQueue}) caps what waits in the queue (and the wait) per queue; it does not consume any faster` },
        ],
      };
    }
    case REASON.sendBackFailed: {
      const fault = f.fault !== undefined ? ` (fault ${f.fault})` : "";
      const drained = (f.drainedUs as number) > i.endUs ? `, and the messages that failed meanwhile were consumed again until ${t(f.drainedUs as number)}` : "";
      const end = f.end === "released" ? `the offset moved on at ${t(i.endUs)}${drained}` : f.end === "dropped" ? `the ProcessQueue was dropped at ${t(i.endUs)}` : "still pinned at the end of the run";
      return {
        sentence: `${span}: ${f.consumer}'s listener failed messages and sending them back to the broker failed${fault}; they stayed in the ProcessQueue and were consumed again locally ${n(f.retries as number)} times (every ${CLIENT_CONSTANTS.LOCAL_CONSUME_RETRY_DELAY / 1000} s), so the committed offset stayed pinned at ${n(f.pinnedOffset as number)} — ${end}. Span flow control follows once newer messages run consumeConcurrentlyMaxSpan (${n(g.config.consumeConcurrentlyMaxSpan)}) ahead; ${moved}.`,
        settings: [
          { setting: "brokers", direction: "set", effect: "send-backs need a writable master for the queue's broker (a read-only or unreachable one fails them)" },
          { setting: "maxReconsumeTimes", direction: "set", effect: "does not help: local retries do not count as reconsumes; the message leaves only when a send-back succeeds or it is consumed" },
        ],
      };
    }
    case REASON.longPollHold: {
      const fault = f.fault !== undefined ? ` — wake-ups lost (fault ${f.fault})` : "";
      const how = f.longPollingEnable === 1
        ? `long polling is on, so an arrival should wake the pull at once${fault}; only the hold service's 5 s check answered it`
        : `long polling is off (longPollingEnable false): a held pull is answered only at the ${n(f.shortPollingTimeMills as number)} ms check (shortPollingTimeMills), not when a message arrives`;
      return {
        sentence: `${span}: ${n(f.holds as number)} pulls of ${f.consumer} were held at the broker ${sec(f.heldMeanMs as number)} on average while messages arrived behind them (${n(f.msgs as number)} messages in those answers) — ${how}; ${moved}. A hold on an idle queue is normal and not reported.`,
        settings: f.longPollingEnable === 1
          ? [{ setting: "longPollingEnable", direction: "set", effect: "already on: a lost wake-up is bounded by the hold service's 5 s check (broker spec §9.2); no client setting shortens it" }]
          : [
              { setting: "longPollingEnable", direction: "set", effect: "true: arrivals wake held pulls at once (broker spec §9)" },
              { setting: "shortPollingTimeMills", direction: "lower", effect: "answers held pulls sooner, at the cost of more empty pulls" },
            ],
      };
    }
    case REASON.pullExpired: {
      const back = f.recreatedUs !== undefined ? `; a rebalance recreated it at ${t(f.recreatedUs as number)}` : "; it was not recreated before the end of the run";
      const interval = g.config.pullInterval > CLIENT_CONSTANTS.PULL_MAX_IDLE_TIME ? ` pullInterval (${g.config.pullInterval} ms) is longer than that: every wait between pulls ends this way.` : " A pull lost without an answer or time-out leaves the queue idle like this.";
      return {
        sentence: `${span}: ${f.consumer} sent no pull since ${t(f.idleSinceUs as number)}; at ${t(f.droppedUs as number)} a rebalance found the ProcessQueue idle for more than PULL_MAX_IDLE_TIME (${CLIENT_CONSTANTS.PULL_MAX_IDLE_TIME / 1000} s) and dropped it${back}.${interval} ${moved[0]!.toUpperCase()}${moved.slice(1)}.`,
        settings: [{ setting: "pullInterval", direction: "lower", effect: `(now ${g.config.pullInterval} ms) below ${CLIENT_CONSTANTS.PULL_MAX_IDLE_TIME / 1000} s the queue is never idle that long` }],
      };
    }
  }
  return undefined;
}
