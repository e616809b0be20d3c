// Types shared by the SQL92 filter's parser and evaluator (issue 19). The node kinds mirror the Java classes of
// RocketMQ's filter module (org.apache.rocketmq.filter.expression) so that each evaluation rule can be traced
// to the class it comes from; see sql92.ts for the overview.

/** How a compile-time failure arose; only "syntax" matters internally (the unary '+' look-ahead). */
export type SqlErrorKind = "lexical" | "syntax" | "semantic" | "limit";

export class SqlSyntaxError extends Error {
  /** 0-based character index into the filter text where the error was detected. */
  readonly position: number;
  readonly kind: SqlErrorKind;
  constructor(message: string, position: number, kind: SqlErrorKind = "syntax") {
    super(`${message} (at position ${position})`);
    this.name = "SqlSyntaxError";
    this.position = position;
    this.kind = kind;
  }
}

/** Which RocketMQ filter grammar to follow: CONTAINS / STARTSWITH / ENDSWITH exist from 5.1.3 on. */
export type SqlProfile = "4.7" | "4.9" | "5.x";
export interface SqlCompileOptions {
  /** Default "5.x" (the HEAD grammar, a superset of 4.x). */
  profile?: SqlProfile;
}

/** One node of a compiled expression. A single shape for every node keeps the evaluator's switch monomorphic. */
export interface SqlNode {
  readonly op: number;
  /** Start of the node's text (for compile-time error positions). */
  readonly pos: number;
  readonly left: SqlNode | null;
  readonly right: SqlNode | null;
  /** OP_CONST: value class (K_*). OP_IN / string functions: 1 for the NOT form. */
  readonly kind: number;
  /** OP_CONST numeric (or 0/1 for Boolean) value. */
  readonly num: number;
  /** OP_CONST Long value (number or bigint). */
  readonly long: number | bigint;
  /** OP_CONST string, OP_PROP name, string-function search text. */
  readonly str: string;
  /** For a string constant or search text: the number n with String(n) === str, else null. */
  readonly strNum: number | null;
  /** OP_IN: the literal list and, per element, the number whose String() it is (or null). */
  readonly list: readonly string[] | null;
  readonly listNum: readonly (number | null)[] | null;
}

/** A compiled filter: compile once, evaluate many times. */
export interface SqlExpr {
  readonly text: string;
  readonly root: SqlNode;
  /** Property names referenced, sorted, unique. */
  readonly properties: readonly string[];
  /**
   * Index of the first token RocketMQ's parser leaves unread, or -1. SelectorParser#JmsSelector does not
   * demand end of input, so "a > 5 garbage" compiles as "a > 5" in RocketMQ; callers may warn about it.
   */
  readonly ignoredFrom: number;
  readonly profile: SqlProfile;
}

/** The number n whose String(n) is exactly `s` (the text a numeric model property stands for), else null. */
export function numberForm(s: string): number | null {
  if (s.length === 0 || s.length > 40) return null;
  const n = Number(s);
  return String(n) === s ? n : null;
}

export function makeNode(op: number, pos: number, left: SqlNode | null, right: SqlNode | null): SqlNode {
  return { op, pos, left, right, kind: 0, num: 0, long: 0, str: "", strNum: null, list: null, listNum: null };
}
