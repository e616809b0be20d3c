// One plain-language sentence per interval, with its numbers, and the settings that would change it.
// Everything here reads the interval's figures and the scenario's configuration; nothing else.
import type { GroupModel, Model } from "../scenario/types.ts";
import type { RawInterval } from "./intervals.ts";
import { formatCount as n, formatTimeUs as t } from "./format.ts";
import { REASON, type SettingAdvice } from "./types.ts";
import { describeMeasured, poolCause } from "./sentencesMeasured.ts";

export interface Progress {
  /** Messages brought in by FOUND pulls during the interval. */
  pulled: number;
  /** FOUND pulls during the interval. */
  pulls: number;
}

/** The sentence and the advice for one interval. */
export function describe(i: RawInterval, p: Progress, model: Model): { sentence: string; settings: SettingAdvice[] } {
  const g = model.groups[i.group]!;
  const f = i.figures;
  const span = `${t(i.startUs)}–${i.ongoing ? "end of run" : t(i.endUs)} (${t(i.endUs - i.startUs)})`;
  const rate = p.pulled / Math.max((i.endUs - i.startUs) / 1e6, 1e-6);
  const moved = p.pulled === 0 ? "nothing was pulled" : `the queue still took in ${n(p.pulled)} messages (${rate.toFixed(1)} msg/s) in ${n(p.pulls)} pulls of ≤ ${g.config.pullBatchSize}`;
  const measured = describeMeasured(i, span, moved, model, g);
  if (measured !== undefined) return measured;
  switch (i.reason) {
    case REASON.flowControlCount:
    case REASON.flowControlSize: {
      const count = i.reason === REASON.flowControlCount;
      const what = count ? "cached message count" : "cached size";
      const unit = count ? "" : " MiB";
      const knob = count ? "pullThresholdForQueue" : "pullThresholdSizeForQueue";
      const perTopic = f.perTopic !== undefined ? ` (${count ? "pullThresholdForTopic" : "pullThresholdSizeForTopic"} ${n(f.perTopic as number)} divided among the instance's queues)` : "";
      const slower = (f.fault !== undefined ? ` The listener was slowed by fault ${f.fault}.` : "") + poolCause(f);
      return {
        sentence: `${span}: ${f.consumer} deferred pulls by ${count ? "count" : "size"} flow control ${n(f.deferrals as number)} times — ${what} ${n(f.valueMin as number)}–${n(f.valueMax as number)}${unit} > ${knob} ${n(f.threshold as number)}${unit}${perTopic}; ${moved}.${slower} Messages arrive faster than the listener consumes them (a producer outrunning it, or a backlog being drained): the cache stays full and the lag waits upstream of it.`,
        settings: [
          { setting: "consumeThreadMin", direction: "raise", effect: `(now ${g.config.consumeThreadMin}) consumes faster if the listener is not the bottleneck downstream; this is what lifts throughput` },
          { setting: perTopic !== "" ? (count ? "pullThresholdForTopic" : "pullThresholdSizeForTopic") : knob, direction: "raise", effect: "more cached per queue before pulls stop: more memory, same throughput while the listener is the limit" },
        ],
      };
    }
    case REASON.flowControlSpan: {
      const firstKey = f.committedAtStart as number | undefined;
      const pinned = f.committedPinned === 1 && firstKey !== undefined;
      const head = firstKey === undefined
        ? ""
        : f.pinnedBy === REASON.sendBackFailed
          ? ` The committed offset was pinned at ${n(firstKey)} (the ProcessQueue's firstKey) from ${t(f.committedSinceUs as number)} on: that message failed and so did its send-back, so it stayed, consumed again locally every 5 s (see the ${REASON.sendBackFailed} interval)${pinned ? "" : `; the offset reached ${n(f.committedAtEnd as number)} by the end`}.`
          : pinned
          ? ` The committed offset stayed pinned at ${n(firstKey)} (the ProcessQueue's firstKey) from ${t(f.committedSinceUs as number)} on: that message has been in the listener since then — hung${f.fault !== undefined ? ` (fault ${f.fault})` : ""} — so lastKey ${n(firstKey + (f.valueMax as number))} runs ahead of it.`
          : ` The committed offset moved from ${n(firstKey)} to ${n(f.committedAtEnd as number)}: a slow message, not a hung one.`;
      return {
        sentence: `${span}: ${f.consumer} deferred pulls by span flow control ${n(f.deferrals as number)} times — span (lastKey − firstKey) ${n(f.valueMin as number)}–${n(f.valueMax as number)} > consumeConcurrentlyMaxSpan ${n(f.threshold as number)}; ${moved}.${head}`,
        settings: [
          { setting: "consumeConcurrentlyMaxSpan", direction: "raise", effect: "delays the onset by span ÷ queue rate but does not lift the ceiling: the queue still only moves in pulses while the head is stuck" },
          { setting: "consumeTimeout", direction: "lower", effect: `(now ${g.config.consumeTimeout} min) cleanExpiredMsg sends the stuck head back once it has been in the listener that long (checked every consumeTimeout minutes), which frees the span` },
          { setting: "listener", direction: "set", effect: "a time-out inside the listener itself is the real fix: RocketMQ never aborts a running listener call" },
        ],
      };
    }
    case REASON.noOwner:
      return describeNoOwner(i, span, model, g);
    case REASON.pullFailures: {
      const fault = f.fault !== undefined ? ` (fault ${f.fault})` : "";
      const parts = [
        (f.timeouts as number) > 0 ? `${n(f.timeouts as number)} pull(s) timed out after 30 s (CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND)` : "",
        (f.refused as number) > 0 ? `${n(f.refused as number)} refused at once and retried every pullTimeDelayMillsWhenException (${g.config.pullTimeDelayMillsWhenException} ms)` : "",
        (f.errors as number) > 0 ? `${n(f.errors as number)} answered with an error (last ${codeName(f.lastErrorCode as number)})` : "",
      ].filter((x) => x !== "");
      return {
        sentence: `${span}: pulls of ${f.consumer} to ${f.broker} failed (${f.cause}${fault}) — ${parts.join("; ")}; ${moved}.${failNote(f.cause as string)}`,
        // NO_PERMISSION: the broker itself refuses (pullChecks.ts) — only lifting the refusal helps.
        settings: f.lastErrorCode === 16 ? [
          { setting: "subscriptionGroup.consumeEnable", direction: "set", effect: "NO_PERMISSION is a read permission the broker checks first — its brokerPermission, the group's consumeEnable (or consumeBroadcastEnable), the topic's perm; pulls resume within pullTimeDelayMillsWhenException of lifting it" },
        ] : [
          { setting: "brokers.replicas", direction: "set", effect: "a slave to read from keeps a queue moving while its master is down (pulls go to the slave)" },
          { setting: "pullTimeDelayMillsWhenException", direction: "lower", effect: "retries a refused broker sooner; it cannot shorten a pull already waiting out its 30 s time-out" },
        ],
      };
    }
    case REASON.offsetIllegal: {
      const fixed = f.fixedUs !== undefined ? `offset fixed at ${t(f.fixedUs as number)}` : "offset not fixed yet";
      const back = f.recreatedUs !== undefined ? `, queue recreated by a rebalance at ${t(f.recreatedUs as number)}` : ", queue not recreated before the end of the run";
      const profile = model.profile === "5.x" ? "5.x fixes the offset at once and wakes the rebalance" : `${model.profile} fixes the offset 10 s later and recreates the queue only at the next rebalance (every 20 s)`;
      return {
        sentence: `${span}: ${f.consumer} pulled at offset ${n(f.requestedOffset as number)} and got OFFSET_ILLEGAL (nextBeginOffset ${n(f.nextBeginOffset as number)}): ${n(f.skipped as number)} messages skipped, never consumed (${f.fault !== undefined ? `fault ${f.fault}` : "the broker's min offset had passed them: retention"}); ${fixed}${back}. ${profile}.`,
        settings: [
          { setting: "profile", direction: "set", effect: "5.x recovers in about a second instead of 10 s + the next 20 s rebalance" },
          { setting: "consumeThreadMin", direction: "raise", effect: "a consumer that keeps up never falls below the broker's min offset" },
          { setting: "retention", direction: "raise", effect: "keeps the messages longer than the consumer's lag" },
        ],
      };
    }
    case REASON.paused:
    case REASON.notLocked: {
      const paused = i.reason === REASON.paused;
      return {
        sentence: paused
          ? `${span}: ${f.consumer} was paused — pullMessage re-scheduled the pull ${n(f.retries as number)} times, every ${f.delayMs} ms (PULL_TIME_DELAY_MILLS_WHEN_SUSPEND); ${moved}.`
          : `${span}: orderly ${f.consumer} held no broker lock on the queue — the pull was re-scheduled ${n(f.retries as number)} times, every ${f.delayMs} ms; ${moved}.`,
        settings: paused
          ? [{ setting: "resume", direction: "set", effect: "pulls restart within a second of resume()" }]
          : [{ setting: "network", direction: "set", effect: "locks come back at the next lockAll (every 20 s) once the broker is reachable" }],
      };
    }
  }
  return { sentence: `${span}: ${i.reason}`, settings: [] };
}

function describeNoOwner(i: RawInterval, span: string, model: Model, g: GroupModel): { sentence: string; settings: SettingAdvice[] } {
  const f = i.figures;
  if (f.sharedClientId !== undefined) {
    return {
      sentence: `${span}: no instance of ${g.name} owned this queue — two instances use the client id ${f.sharedClientId}: the broker lists it twice, both find themselves at its first index and take the same queues, and the queues meant for the second index have no owner.`,
      settings: [{ setting: "clientIds", direction: "set", effect: "one distinct client id per instance (RocketMQ builds it from the IP and instanceName: set instanceName when two run on one host)" }],
    };
  }
  if (f.cause === "never assigned") {
    return {
      sentence: `${span}: no instance of ${g.name} ever owned this queue — more consumers than queues, or an allocation that leaves it out.`,
      settings: [{ setting: "queuesPerBroker", direction: "raise", effect: "at least as many queues as instances, or fewer instances" }],
    };
  }
  const expiry = model.brokers[0]?.config.channelExpiredTimeout ?? 120_000;
  const vanished = typeof f.cause === "string" && f.cause.includes("vanished");
  const fault = f.fault !== undefined ? ` (fault ${f.fault})` : "";
  const expired = f.channelExpiredUs !== undefined ? ` ${f.channelExpiredAt} dropped its channel at ${t(f.channelExpiredUs as number)} (channelExpiredTimeout ${expiry / 1000} s after its last heartbeat, checked every 10 s);` : "";
  const taken = f.newOwner !== undefined ? ` ${f.newOwner} took the queue at ${t(i.endUs)}, at its next rebalance.` : " Nobody took it before the end of the run.";
  const sentence = `${span}: the queue had no live owner — ${f.lostOwner} ${f.cause}${fault};${expired}${taken}`;
  const settings: SettingAdvice[] = vanished
    ? [
        { setting: "channelExpiredTimeout", direction: "lower", effect: `(broker, now ${expiry / 1000} s) peers learn of a vanished instance sooner; too low drops live clients that miss heartbeats` },
        { setting: "heartbeatBrokerInterval", direction: "lower", effect: "does not help a vanished host (it sends nothing); a clean shutdown or a closed connection moves the queues at once" },
      ]
    : [{ setting: "rebalance", direction: "set", effect: "queues move at the next rebalance (every 20 s, or at once when the broker notifies the group)" }];
  return { sentence, settings };
}

/** What the kind of failure means for the queue. */
function failNote(cause: string): string {
  switch (cause) {
    case "broker down":
      return " The broker is down: a pull in flight at the crash waits out its 30 s time-out, later ones are refused at once.";
    case "broker read-only":
      return " A read-only broker still serves pulls; what fails is what needs its write permission.";
    case "network partition":
      return " Behind a partition no pull is answered: each waits out the 30 s RPC time-out before the next is sent.";
    case "message loss":
      return " A lost request or answer is noticed only when the pull times out, 30 s later.";
    default:
      return "";
  }
}

/** ResponseCode names of the errors a pull can get (src/protocol/codes.ts; a const enum has no reverse map). */
const ERROR_CODES: Readonly<Record<number, string>> = {
  1: "SYSTEM_ERROR", 2: "SYSTEM_BUSY", 16: "NO_PERMISSION", 17: "TOPIC_NOT_EXIST", 24: "SUBSCRIPTION_NOT_EXIST",
  25: "SUBSCRIPTION_NOT_LATEST", 26: "SUBSCRIPTION_GROUP_NOT_EXIST", 29: "INVALID_PARAMETER", 215: "FLOW_CONTROL",
};

function codeName(code: number): string {
  return `${ERROR_CODES[code] ?? "code"} (${code})`;
}
