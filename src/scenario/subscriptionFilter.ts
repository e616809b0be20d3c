// Subscription expressions as the broker matches them (spec §4.2, §13.2; broker spec's consume-queue unit):
// a consume-queue unit keeps the tag's Java String.hashCode (MessageExtBrokerInner#tagsString2tagsCode:
// 0 for a message without a tag), a tag subscription carries the hash codes of its tags beside the tag
// strings (FilterAPI#buildSubscriptionData fills SubscriptionData's tagsSet and codeSet), and a SQL92
// subscription — `{ "sql": "a > 5 AND region = 'eu'" }`, MessageSelector.bySql — carries only its text.
// The text is shape-checked here; the broker's filter compiles it (src/broker/messageFilter.ts), since
// the evaluator lives in the broker layer.
import { describeValue, InputError } from "./errors.ts";
import { checkKeys } from "./read.ts";
import type { SubscriptionModel, TopicModel } from "./types.ts";

/** Longest SQL92 expression accepted (the evaluator's own input bound). */
export const SQL_TEXT_MAX = 4096;

/** java.lang.String#hashCode: s[0]·31^(n−1) + … + s[n−1] over UTF-16 code units, in 32-bit arithmetic. */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/** The tagsCode a consume-queue unit stores for a tag name; "" or no tag (null) is 0. */
export function tagsCodeOf(tag: string | null): number {
  return tag === null || tag === "" ? 0 : javaStringHashCode(tag);
}

/**
 * SubscriptionData#codeSet of a tag expression: the hash codes of its tags (trimmed, empty parts
 * dropped, as FilterAPI splits on "||"); null for "*" (no code set: every unit matches).
 */
export function tagCodeSet(expression: string): Set<number> | null {
  const trimmed = expression.trim();
  if (trimmed === "" || trimmed === "*") return null;
  const codes = new Set<number>();
  for (const part of trimmed.split("||")) {
    const tag = part.trim();
    if (tag !== "") codes.add(javaStringHashCode(tag));
  }
  return codes;
}

/**
 * `{ "sql": "…" }` on a topic: a SQL92 subscription (ExpressionType.SQL92). The client re-checks no tags
 * for it (its tagsSet is empty, PullAPIWrapper#processPullResult), so tagSet is null.
 */
export function normalizeSqlSubscription(raw: Record<string, unknown>, topic: TopicModel, path: string): SubscriptionModel {
  checkKeys(raw, ["sql"], path);
  const sql = raw.sql;
  if (typeof sql !== "string" || sql.trim() === "") {
    throw new InputError(`${path}.sql`, `must be a SQL92 expression such as "a > 5 AND region = 'eu'", got ${describeValue(sql)}`);
  }
  if (sql.length > SQL_TEXT_MAX) throw new InputError(`${path}.sql`, `is ${sql.length} characters long; at most ${SQL_TEXT_MAX} are accepted`);
  return { topic: topic.index, expression: sql, tagSet: null, sql };
}
