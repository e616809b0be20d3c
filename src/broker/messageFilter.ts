// The broker's message filter (ExpressionMessageFilter) and its per-group filter data
// (ConsumerFilterManager), spec §13.2 and §13.4:
// - isMatchedByConsumeQueue: a tag subscription matches a unit when the unit's tagsCode (the tag's
//   String.hashCode, 0 without a tag) is in the subscription's codeSet — so two tags with equal hash
//   codes ("Aa", "BB") both pass here and the client's re-check drops the wrong one; "*" and SQL92
//   match every unit (no consume-queue extension or bloom filter: enableCalcFilterBitMap is off).
// - isMatchedByCommitLog: a SQL92 subscription evaluates its compiled expression on the message's
//   properties; tag subscriptions match. A non-boolean or failed evaluation is no match.
// - The broker refuses a pull under a SQL92 subscription unless enablePropertyFilter (default false):
//   PullMessageProcessor answers SYSTEM_ERROR ("The broker does not support consumer to filter message
//   by SQL92"), which the client takes as an exception (§4.4) — verified in 4.9.7 and 5.x.
// - Not modelled: DefaultMQPushConsumerImpl#start's checkClientInBroker, which asks one broker
//   (CHECK_CLIENT_CONFIG) and makes start() throw on that same refusal; the model's application carries on
//   (as one that catches the exception would), so its pulls meet the refusal.
// - %RETRY% topics are subscribed "*" by the push consumer (copySubscription), so a SQL92 group's retry
//   messages pass unfiltered (ExpressionForRetryMessageFilter only runs with filterSupportRetry, default
//   false, and even then returns early for a tag-type "*" retry subscription).
//
// Filter data is built once per run from the scenario's subscriptions, keyed (group, topic) as
// ConsumerFilterManager keys it; subscriptions never change during a run, so this equals what the
// heartbeats register. The SQL text is compiled here (the evaluator lives in the broker layer);
// checkSubscriptionFilters does it at load time so a syntax error is an input error.
import { describeValue, InputError } from "../scenario/errors.ts";
import { propertyKey, propertyValue, type MessagePropertyModel } from "../scenario/messageProperties.ts";
import { tagsCodeOf } from "../scenario/subscriptionFilter.ts";
import type { Model, Profile, SubscriptionModel, TopicModel } from "../scenario/types.ts";
import { compileSql, evaluateSql, SqlSyntaxError, type SqlExpr } from "./filter/sql92.ts";
import type { QueueStore } from "./QueueStore.ts";

type Value = string | number | boolean | null;

/** One (group, topic) subscription's filter, as the broker applies it to consume-queue units. */
export class MessageFilter {
  /** By tag index + 1 (slot 0: no tag): 1 when the unit's tagsCode is in the code set; null: every unit. */
  readonly tagMatch: Uint8Array | null;
  readonly sql: SqlExpr | null;
  /** The property names the topic's producers set, in declaration order, and their models. */
  private readonly names: readonly string[];
  private readonly props: readonly MessagePropertyModel[];
  private readonly seed: number;
  /** The message being evaluated (its propertyKey); read by `get`, which is made once, not per unit. */
  private key = 0;
  private readonly get: (name: string) => Value;

  constructor(sub: SubscriptionModel, topic: TopicModel, sql: SqlExpr | null, seed: number) {
    this.sql = sql;
    this.seed = seed;
    this.props = topic.produce?.properties ?? [];
    this.names = this.props.map((p) => p.name);
    const codes = sub.codeSet;
    if (sub.tagSet === null || codes === undefined) {
      this.tagMatch = null;
    } else {
      const m = new Uint8Array(topic.tags.length + 1);
      m[0] = codes.has(tagsCodeOf(null)) ? 1 : 0;
      for (let i = 0; i < topic.tags.length; i++) m[i + 1] = codes.has(tagsCodeOf(topic.tags[i]!)) ? 1 : 0;
      this.tagMatch = m;
    }
    this.get = (name) => this.property(name);
  }

  /** ExpressionMessageFilter#isMatchedByConsumeQueue for a unit with tag index `tag` (−1: none). */
  matchesConsumeQueue(tag: number): boolean {
    const m = this.tagMatch;
    return m === null || m[tag + 1] === 1;
  }

  /** ExpressionMessageFilter#isMatchedByCommitLog for the message whose original is `originKey`. */
  matchesCommitLog(originKey: number): boolean {
    const sql = this.sql;
    if (sql === null) return true;
    this.key = propertyKey(originKey);
    return evaluateSql(sql, this.get);
  }

  /** Both tests on the unit at `offset` of `store` (the long-poll wake-up's, PullRequestHoldService#notifyMessageArriving). */
  matchesUnit(store: QueueStore, offset: number): boolean {
    return this.matchesConsumeQueue(store.tag(offset)) && this.matchesCommitLog(store.originKey(offset));
  }

  /** The current message's property `name` (null when its producers do not set it). */
  private property(name: string): Value {
    const names = this.names;
    for (let i = 0; i < names.length; i++) {
      if (names[i] === name) return propertyValue(this.props[i]!, i, this.seed, this.key);
    }
    return null;
  }
}

/** A SQL92 subscription's compiled expression; a syntax error is an input error naming `path` and the position. */
export function compileSubscriptionSql(text: string, path: string, profile: Profile): SqlExpr {
  try {
    // The grammar is the profile's: CONTAINS / STARTSWITH / ENDSWITH exist only in 5.x (sql92.ts).
    const expr = compileSql(text, { profile });
    // RocketMQ's parser stops after the first complete expression and ignores the rest ("a > 5 ) x" filters
    // as "a > 5"). A scenario whose filter silently means less than it says is refused instead.
    if (expr.ignoredFrom >= 0) {
      throw new InputError(path, `SQL92 text from position ${expr.ignoredFrom} (0-based) of ${describeValue(text)} is not part of the expression: RocketMQ's parser would ignore ${describeValue(text.slice(expr.ignoredFrom))} and filter by ${describeValue(text.slice(0, expr.ignoredFrom).trimEnd())} alone — remove it or fix the expression`);
    }
    return expr;
  } catch (e) {
    if (e instanceof SqlSyntaxError) {
      const reason = e.message.replace(/\s*\(at position \d+\)$/, "");
      throw new InputError(path, `SQL92 syntax error at position ${e.position} (0-based) of ${describeValue(text)}: ${reason}`);
    }
    throw e;
  }
}

/** Compiles every SQL92 subscription of the scenario (load-time validation); throws InputError on the first bad one. */
export function checkSubscriptionFilters(model: Pick<Model, "groups" | "topics" | "profile">): void {
  for (const g of model.groups) {
    for (const s of g.subscriptions) {
      if (s.sql !== undefined) compileSubscriptionSql(s.sql, `groups.${g.index}.subscribe.${model.topics[s.topic]!.name}.sql`, model.profile);
    }
  }
}

/**
 * A SQL92 subscription's filter on its own (null for a tag or "*" subscription): for books that must know
 * which originals a group's filter passes (the message fates), without a broker.
 */
export function sqlFilterOf(model: Pick<Model, "topics" | "seed" | "profile">, group: number, sub: SubscriptionModel): MessageFilter | null {
  if (sub.sql === undefined) return null;
  const topic = model.topics[sub.topic]!;
  return new MessageFilter(sub, topic, compileSubscriptionSql(sub.sql, `groups.${group}.subscribe.${topic.name}.sql`, model.profile), model.seed);
}

/**
 * The run's filter data (ConsumerFilterManager plus each subscription's code set), shared by every
 * broker node, with the books of what the filters cost per (group, queue): units skipped, and getMessage
 * answers FOUND and NO_MATCHED_MESSAGE (PULL_RETRY_IMMEDIATELY, the client's NO_MATCHED_MSG).
 */
export class BrokerFilters {
  private readonly filters: (MessageFilter | null)[];
  private readonly topicCount: number;
  private readonly queueCount: number;
  /** [group × queueCount + mq]: consume-queue units the filter skipped while answering the group's pulls. */
  readonly filteredAtBroker: Float64Array;
  /** [group × queueCount + mq]: getMessage answers FOUND, and NO_MATCHED_MESSAGE. */
  readonly found: Float64Array;
  readonly noMatched: Float64Array;

  constructor(model: Pick<Model, "groups" | "topics" | "seed" | "profile">, queueCount: number) {
    this.topicCount = model.topics.length;
    this.queueCount = queueCount;
    this.filters = new Array<MessageFilter | null>(model.groups.length * this.topicCount).fill(null);
    for (const g of model.groups) {
      for (const s of g.subscriptions) {
        if (s.tagSet === null && s.sql === undefined) continue; // "*": no filter
        const topic = model.topics[s.topic]!;
        const sql = s.sql === undefined ? null : compileSubscriptionSql(s.sql, `groups.${g.index}.subscribe.${topic.name}.sql`, model.profile);
        this.filters[g.index * this.topicCount + s.topic] = new MessageFilter(s, topic, sql, model.seed);
      }
    }
    this.filteredAtBroker = new Float64Array(model.groups.length * queueCount);
    this.found = new Float64Array(model.groups.length * queueCount);
    this.noMatched = new Float64Array(model.groups.length * queueCount);
  }

  /** The filter of `group`'s subscription to `topic`; null for "*" and for %RETRY% topics (subscribed "*"). */
  of(group: number, topic: number): MessageFilter | null {
    return topic < this.topicCount ? this.filters[group * this.topicCount + topic] ?? null : null;
  }

  /** Whether a pull of `group` on `topic` is refused: SQL92 while enablePropertyFilter is off. */
  refuses(group: number, topic: number, enablePropertyFilter: boolean): boolean {
    if (enablePropertyFilter) return false;
    const f = this.of(group, topic);
    return f !== null && f.sql !== null;
  }

  /** Books one getMessage scan: `filtered` units skipped, and whether it was FOUND or NO_MATCHED_MESSAGE. */
  noteScan(group: number, mq: number, filtered: number, found: boolean, noMatched: boolean): void {
    const i = group * this.queueCount + mq;
    if (filtered > 0) this.filteredAtBroker[i]! += filtered;
    if (found) this.found[i]! += 1;
    else if (noMatched) this.noMatched[i]! += 1;
  }

  /** The books of `group` on queue `mq`. */
  booksOf(group: number, mq: number): { filteredAtBroker: number; found: number; noMatched: number } {
    const i = group * this.queueCount + mq;
    return { filteredAtBroker: this.filteredAtBroker[i] ?? 0, found: this.found[i] ?? 0, noMatched: this.noMatched[i] ?? 0 };
  }
}
