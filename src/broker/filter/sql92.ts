// The SQL92 message filter of RocketMQ (issue 19): MessageSelector.bySql subscriptions, evaluated by the broker
// against each message's properties (ExpressionMessageFilter#isMatchedByCommitLog, spec rocketmq-broker.md
// §13.2). A faithful port of the semantics of RocketMQ's filter module (org.apache.rocketmq.filter: the grammar
// SelectorParser.jj and the expression classes), checked against rocketmq-all-4.9.7 and 5.x HEAD:
// - Literals: integers are Integer when they fit, else Long (beyond Long: compile error; no hex or octal:
//   "0x10" reads as 0 followed by an ignored identifier); decimals/exponents are Double (0.0 and overflow are
//   compile errors); 'text' with '' for a quote; TRUE, FALSE, NULL.
// - Properties are Strings. Comparing one with a number converts the String with Integer/Long/Double.valueOf
//   according to the literal's class ("7" > 5 is TRUE; "7.5" > 5 throws, as does "abc" = 5); a thrown
//   exception anywhere makes the message not match, even under NOT or OR (unless short-circuited first).
// - Two Strings compare with > etc. only as numbers (Double.valueOf both); string literals cannot be ordered
//   at all (compile error); = and <> compare any values.
// - Three-valued logic: an absent property is null; comparisons with null are null except that "value = absent"
//   is FALSE and "absent = absent" is TRUE (doCreateEqual); AND/OR/NOT follow SQL's Kleene rules; only TRUE
//   matches. IN on an absent property is null; CONTAINS/STARTSWITH/ENDSWITH on one are FALSE, NOT form too.
// - Grammar quirks kept: unary NOT binds tighter than comparisons; text after a complete expression is ignored
//   (reported in SqlExpr.ignoredFrom); CONTAINS/STARTSWITH/ENDSWITH exist only in the "5.x" profile (5.1.3+).
// A model-supplied number stands for the property text String(n); a boolean for "true"/"false".
import { evaluateSql as evaluate, type SqlPropertyGetter } from "./sql92Eval.ts";
import { parseSql } from "./sql92Parse.ts";
import { OP_PROP } from "./sql92Eval.ts";
import type { SqlCompileOptions, SqlExpr, SqlNode } from "./sql92Types.ts";

export { SqlSyntaxError } from "./sql92Types.ts";
export type { SqlCompileOptions, SqlExpr, SqlProfile } from "./sql92Types.ts";
export type { SqlPropertyGetter } from "./sql92Eval.ts";
export { evaluateSqlValue } from "./sql92Eval.ts";
export { SQL_NESTING_MAX, SQL_TEXT_CHARS_MAX } from "./sql92Parse.ts";

/** Compiles filter text; throws SqlSyntaxError (with a 0-based `position`) where RocketMQ would refuse it. */
export function compileSql(text: string, options: SqlCompileOptions = {}): SqlExpr {
  const profile = options.profile ?? "5.x";
  const { root, ignoredFrom } = parseSql(text, profile);
  const names = new Set<string>();
  collectProperties(root, names);
  return { text, root, properties: [...names].sort(), ignoredFrom, profile };
}

/** True when the message whose properties `get` returns matches (only a TRUE result matches). */
export function evaluateSql(expr: SqlExpr, get: SqlPropertyGetter): boolean {
  return evaluate(expr, get);
}

/** Property names referenced by the expression, sorted, unique. */
export function sqlProperties(expr: SqlExpr): string[] {
  return [...expr.properties];
}

function collectProperties(node: SqlNode | null, into: Set<string>): void {
  if (node === null) return;
  if (node.op === OP_PROP) into.add(node.str);
  collectProperties(node.left, into);
  collectProperties(node.right, into);
}
