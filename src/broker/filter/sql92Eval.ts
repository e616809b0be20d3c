// Evaluation of a compiled SQL92 filter, one message at a time (issue 19). Ports the evaluate() rules of
// RocketMQ's org.apache.rocketmq.filter.expression classes (same in 4.9.7 and 5.x HEAD apart from CONTAINS,
// STARTSWITH, ENDSWITH, which 5.1.3 added). No allocation on the common paths: values travel through the
// module-level registers below instead of objects, and a Java exception becomes the value K_ERR, which aborts the
// whole evaluation as a throw does in Java (ExpressionMessageFilter#isMatchedByCommitLog catches it: no match).
import * as JavaNumbers from "./javaNumbers.ts";
import type { SqlExpr, SqlNode } from "./sql92Types.ts";

// A plain-object copy of the conversions: under tsx, calls through an imported namespace are slow.
const J = { ...JavaNumbers };

// The constants live here, not in sql92Types.ts: under tsx (how bin/rmqsim.js runs) every read of an imported
// binding is far slower than of a module-local const, and the evaluator reads them on every node.
//
// Node operations. Value nodes produce a typed value; the others produce Boolean/null like RocketMQ's
// BooleanExpression classes.
export const OP_CONST = 0; // ConstantExpression / BooleanConstantExpression
export const OP_PROP = 1; // PropertyExpression
export const OP_NEG = 2; // UnaryExpression.createNegate
export const OP_AND = 3; // LogicExpression.createAND
export const OP_OR = 4; // LogicExpression.createOR
export const OP_NOT = 5; // UnaryExpression.createNOT
export const OP_CAST = 6; // UnaryExpression.createBooleanCast
export const OP_EQ = 7; // ComparisonExpression.doCreateEqual
export const OP_GT = 8; // ComparisonExpression.createGreaterThan
export const OP_GE = 9;
export const OP_LT = 10;
export const OP_LE = 11;
export const OP_IN = 12; // UnaryExpression.createInExpression (not flag for NOT IN)
export const OP_CONTAINS = 13; // ComparisonExpression.ContainsExpression (5.1.3+)
export const OP_STARTSWITH = 14;
export const OP_ENDSWITH = 15;

// Java value classes a node can produce. STR is java.lang.String; NUMSTR is a String property whose text is
// String(n) of a number handed over by the model (kept as the number so conversions need no parsing).
export const K_NULL = 0;
export const K_BOOL = 1;
export const K_INT = 2; // java.lang.Integer
export const K_LONG = 3; // java.lang.Long (number when a safe integer, else bigint)
export const K_DOUBLE = 4; // java.lang.Double
export const K_STR = 5;
export const K_NUMSTR = 6;
export const K_ERR = 7; // evaluation threw: ExpressionMessageFilter#isMatchedByCommitLog then answers "no match"

export type SqlPropertyGetter = (name: string) => string | number | boolean | null;

// The value registers: kind (K_*), number, Long, string and, for a string literal, its number form.
let rk = K_NULL;
let rn = 0;
let rl: number | bigint = 0;
let rs = "";
let rsn: number | null | undefined = undefined; // undefined: not known (a property's text)
let getter: SqlPropertyGetter | null = null;

/** Evaluates `expr` for one message; only Boolean TRUE matches (BooleanExpression#matches). */
export function evaluateSql(expr: SqlExpr, get: SqlPropertyGetter): boolean {
  const saved = getter;
  getter = get;
  ev(expr.root);
  getter = saved;
  return rk === K_BOOL && rn === 1;
}

/** The three-valued result (plus "ERROR" for a Java exception), for tests and explanations. */
export function evaluateSqlValue(expr: SqlExpr, get: SqlPropertyGetter): "TRUE" | "FALSE" | "NULL" | "ERROR" {
  evaluateSql(expr, get);
  if (rk === K_BOOL) return rn === 1 ? "TRUE" : "FALSE";
  return rk === K_ERR ? "ERROR" : "NULL";
}

function setBool(b: boolean): void {
  rk = K_BOOL;
  rn = b ? 1 : 0;
}

function ev(node: SqlNode): void {
  switch (node.op) {
    case OP_CONST:
      rk = node.kind; rn = node.num; rl = node.long; rs = node.str; rsn = node.strNum;
      return;
    case OP_PROP:
      loadProperty((getter as SqlPropertyGetter)(node.str));
      return;
    case OP_NEG:
      ev(node.left as SqlNode);
      negate();
      return;
    case OP_AND: return evalAnd(node);
    case OP_OR: return evalOr(node);
    case OP_NOT:
      ev(node.left as SqlNode); // UnaryExpression#createNOT: null stays null
      if (rk === K_BOOL) rn = 1 - rn;
      return;
    case OP_CAST:
      ev(node.left as SqlNode); // UnaryExpression#createBooleanCast: a non-Boolean value (any String) is FALSE
      if (rk !== K_BOOL && rk !== K_NULL && rk !== K_ERR) setBool(false);
      return;
    case OP_EQ: return evalEqual(node);
    case OP_GT: case OP_GE: case OP_LT: case OP_LE: return evalOrder(node);
    case OP_IN: return evalIn(node);
    default: return evalStringTest(node);
  }
}

// PropertyExpression: RocketMQ's properties are Strings; a number from the model stands for the String(n) text
// its producer would have attached, a boolean for "true"/"false".
function loadProperty(v: string | number | boolean | null | undefined): void {
  if (v === null || v === undefined) rk = K_NULL;
  else if (typeof v === "string") (rk = K_STR, rs = v, rsn = undefined);
  else if (typeof v === "number") (rk = K_NUMSTR, rn = v);
  else (rk = K_STR, rs = v ? "true" : "false", rsn = undefined);
}

// UnaryExpression#createNegate: numbers change sign, null stays null, anything else (String, Boolean) is null.
function negate(): void {
  if (rk === K_INT) rn = 0 - rn;
  else if (rk === K_LONG) rl = typeof rl === "bigint" ? J.normaliseLong(-rl) : 0 - rl;
  else if (rk === K_DOUBLE) rn = -rn;
  else if (rk !== K_ERR) rk = K_NULL;
}

// LogicExpression#createAND: FALSE wins over null; null if either side is null; right side skipped after FALSE.
function evalAnd(node: SqlNode): void {
  ev(node.left as SqlNode);
  if (rk === K_ERR) return;
  const leftNull = rk === K_NULL;
  if (!leftNull && rn === 0) return setBool(false);
  ev(node.right as SqlNode);
  if (rk === K_ERR || (rk === K_BOOL && rn === 0)) return;
  if (leftNull) rk = K_NULL;
}

// LogicExpression#createOR: TRUE wins over null; null if either side is null; right side skipped after TRUE.
function evalOr(node: SqlNode): void {
  ev(node.left as SqlNode);
  if (rk === K_ERR) return;
  const leftNull = rk === K_NULL;
  if (!leftNull && rn === 1) return;
  ev(node.right as SqlNode);
  if (rk === K_ERR || (rk === K_BOOL && rn === 1)) return;
  if (leftNull) rk = K_NULL;
}

// ComparisonExpression#doCreateEqual (=, <>, IS NULL): both sides evaluated; only a null LEFT side gives null,
// a null right side against a value gives FALSE, two nulls are equal; else equals() or __compare() == 0.
function evalEqual(node: SqlNode): void {
  ev(node.left as SqlNode);
  if (rk === K_ERR) return;
  const lk = rk, ln = rn, ll = rl, ls = rs, lsn = rsn;
  ev(node.right as SqlNode);
  if (rk === K_ERR) return;
  if ((lk === K_NULL) !== (rk === K_NULL)) {
    if (lk === K_NULL) rk = K_NULL;
    else setBool(false);
    return;
  }
  if (lk === K_NULL) return setBool(true);
  const c = compareValues(lk, ln, ll, ls, lsn, rk, rn, rl, rs, rsn);
  if (c === ERR) rk = K_ERR;
  else setBool(c === 0);
}

// ComparisonExpression#evaluate (>, >=, <, <=): null on either side is null (right side not evaluated after a
// null left); two Strings are compared as Double.valueOf of each (unparsable: exception); else __compare.
function evalOrder(node: SqlNode): void {
  ev(node.left as SqlNode);
  if (rk === K_ERR || rk === K_NULL) return;
  const lk = rk, ln = rn, ll = rl, ls = rs, lsn = rsn;
  ev(node.right as SqlNode);
  if (rk === K_ERR || rk === K_NULL) return;
  let c: number;
  if (isString(lk) && isString(rk)) {
    const a = toDouble(lk, ln, ls);
    if (!J.conversion.ok) return void (rk = K_ERR);
    const b = toDouble(rk, rn, rs);
    if (!J.conversion.ok) return void (rk = K_ERR);
    c = J.compareDouble(a, b);
  } else {
    c = compareValues(lk, ln, ll, ls, lsn, rk, rn, rl, rs, rsn);
    if (c === ERR) return void (rk = K_ERR);
  }
  const op = node.op;
  setBool(op === OP_GT ? c > 0 : op === OP_GE ? c >= 0 : op === OP_LT ? c < 0 : c <= 0);
}

// UnaryExpression#createInExpression: null or a non-String value is null; else list membership, XOR NOT.
function evalIn(node: SqlNode): void {
  ev(node.left as SqlNode);
  if (rk === K_ERR) return;
  if (!isString(rk)) return void (rk = K_NULL);
  const list = node.list as readonly string[];
  let found = false;
  if (rk === K_STR) {
    for (let i = 0; i < list.length && !found; i++) found = list[i] === rs;
  } else {
    const nums = node.listNum as readonly (number | null)[];
    for (let i = 0; i < nums.length && !found; i++) found = sameNumberText(nums[i] ?? null, rn);
  }
  setBool(found !== (node.kind === 1));
}

// ComparisonExpression.ContainsExpression & co (5.1.3+): an empty search text is FALSE before the operand is
// even evaluated; null or a non-String operand is FALSE for the plain AND the NOT form.
function evalStringTest(node: SqlNode): void {
  const search = node.str;
  if (search.length === 0) return setBool(false);
  ev(node.left as SqlNode);
  if (rk === K_ERR) return;
  if (!isString(rk)) return setBool(false);
  const s = rk === K_STR ? rs : String(rn);
  const op = node.op;
  const hit = op === OP_CONTAINS ? s.includes(search) : op === OP_STARTSWITH ? s.startsWith(search) : s.endsWith(search);
  setBool(hit !== (node.kind === 1));
}

const ERR = 2;

function isString(k: number): boolean {
  return k === K_STR || k === K_NUMSTR;
}

/** String(a) === String(b) for two numbers. */
function sameNumberText(a: number | null, b: number): boolean {
  return a !== null && (a === b || (a !== a && b !== b));
}

function stringOf(k: number, n: number, s: string): string {
  return k === K_STR ? s : String(n);
}

function toDouble(k: number, n: number, s: string): number {
  return k === K_STR ? J.javaParseDouble(s) : J.numberToDouble(n);
}

function toInt(k: number, n: number, s: string): number {
  return k === K_STR ? J.javaParseInt(s) : J.numberToInt(n);
}

function toLong(k: number, n: number, s: string): number | bigint {
  return k === K_STR ? J.javaParseLong(s) : J.numberToLong(n);
}

function sign(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Two Strings: equals() / compareTo() (UTF-16 code-unit order, as JS's < on strings). */
function compareStrings(lk: number, ln: number, ls: string, lsn: number | null | undefined,
  rk: number, rn: number, rs: string, rsn: number | null | undefined): number {
  if (lk === K_NUMSTR && rk === K_NUMSTR) {
    if (sameNumberText(ln, rn)) return 0;
  } else if (lk === K_NUMSTR && rsn !== undefined) {
    if (sameNumberText(rsn, ln)) return 0;
  } else if (rk === K_NUMSTR && lsn !== undefined) {
    if (sameNumberText(lsn, rn)) return 0;
  }
  const a = stringOf(lk, ln, ls);
  const b = stringOf(rk, rn, rs);
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * ComparisonExpression#__compare with convertStringExpressions on (SelectorParser#parse always sets it): equal
 * classes compare directly; Integer→Long→Double widen; a String meeting a number or Boolean is converted with
 * Integer/Long/Double/Boolean.valueOf (NumberFormatException: ERR); a Boolean left side meeting a String casts
 * the Boolean to String (ClassCastException: ERR); any other mix is -1. Returns -1, 0, 1 or ERR.
 */
export function compareValues(lk: number, ln: number, ll: number | bigint, ls: string, lsn: number | null | undefined,
  rk: number, rn: number, rl: number | bigint, rs: string, rsn: number | null | undefined): number {
  if (isString(lk) && isString(rk)) return compareStrings(lk, ln, ls, lsn, rk, rn, rs, rsn);
  if (lk === rk) {
    if (lk === K_LONG) return J.compareLong(ll, rl);
    return lk === K_DOUBLE ? J.compareDouble(ln, rn) : sign(ln, rn);
  }
  let v: number;
  switch (lk) {
    case K_BOOL:
      return isString(rk) ? ERR : -1;
    case K_INT:
      if (rk === K_LONG) return J.compareLong(ln, rl);
      if (rk === K_DOUBLE) return J.compareDouble(ln, rn);
      if (rk === K_BOOL) return -1;
      v = toInt(rk, rn, rs);
      return J.conversion.ok ? sign(ln, v) : ERR;
    case K_LONG:
      if (rk === K_INT) return J.compareLong(ll, rn);
      if (rk === K_DOUBLE) return J.compareDouble(J.longToDouble(ll), rn);
      if (rk === K_BOOL) return -1;
      {
        const w = toLong(rk, rn, rs);
        return J.conversion.ok ? J.compareLong(ll, w) : ERR;
      }
    case K_DOUBLE:
      if (rk === K_INT) return J.compareDouble(ln, rn);
      if (rk === K_LONG) return J.compareDouble(ln, J.longToDouble(rl));
      if (rk === K_BOOL) return -1;
      v = toDouble(rk, rn, rs);
      return J.conversion.ok ? J.compareDouble(ln, v) : ERR;
    default: // the left side is a String
      if (rk === K_BOOL) return sign((lk === K_STR && J.javaParseBoolean(ls)) ? 1 : 0, rn);
      if (rk === K_INT) {
        v = toInt(lk, ln, ls);
        return J.conversion.ok ? sign(v, rn) : ERR;
      }
      if (rk === K_LONG) {
        const w = toLong(lk, ln, ls);
        return J.conversion.ok ? J.compareLong(w, rl) : ERR;
      }
      v = toDouble(lk, ln, ls);
      return J.conversion.ok ? J.compareDouble(v, rn) : ERR;
  }
}

export const COMPARE_ERROR = ERR;
