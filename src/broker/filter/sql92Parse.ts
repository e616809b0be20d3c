// A hand-written recursive-descent port of RocketMQ's SelectorParser.jj (filter module) and of the checks its
// node factories make at compile time (ComparisonExpression#createXxx, SelectorParser#asBooleanExpression,
// ConstantExpression#createFromDecimal / #createFloat). Precedence, lowest first, as in the grammar:
//   OR < AND < (= | <> | IS [NOT] NULL) < (> >= < <= | [NOT] BETWEEN | [NOT] IN | [NOT] CONTAINS ...) < unary
// where unary is + - NOT: so "NOT a = 1" is "(NOT a) = 1" in RocketMQ, and "NOT (a = 1)" needs parentheses.
import * as L from "./sql92Lex.ts";
import * as E from "./sql92Eval.ts";
import { makeNode, numberForm, SqlSyntaxError, type SqlNode, type SqlProfile } from "./sql92Types.ts";

/** Longest accepted filter text, and deepest nesting of parentheses and unary operators. */
export const SQL_TEXT_CHARS_MAX = 4096;
export const SQL_NESTING_MAX = 64;

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;
const LONG_MAX = 2n ** 63n - 1n;

export interface ParseResult {
  root: SqlNode;
  ignoredFrom: number;
}

export function parseSql(text: string, profile: SqlProfile): ParseResult {
  if (text.length > SQL_TEXT_CHARS_MAX) {
    throw new SqlSyntaxError(`filter text longer than ${SQL_TEXT_CHARS_MAX} characters`, SQL_TEXT_CHARS_MAX, "limit");
  }
  const p = new Parser(new L.SqlLexer(text, profile));
  const root = p.asBoolean(p.orExpression()); // SelectorParser#JmsSelector
  const next = p.lex.peek(1);
  return { root, ignoredFrom: next.kind === L.T_EOF ? -1 : next.start };
}

function semantic(message: string, at: number): never {
  throw new SqlSyntaxError(message, at, "semantic");
}

function isConst(n: SqlNode): boolean {
  return n.op === E.OP_CONST;
}

/** Classes implementing BooleanExpression: comparisons, logic, NOT/cast, IN, TRUE/FALSE/NULL literals. */
function isBooleanExpression(n: SqlNode): boolean {
  if (n.op === E.OP_CONST) return n.kind === E.K_BOOL || n.kind === E.K_NULL;
  return n.op !== E.OP_PROP && n.op !== E.OP_NEG;
}

class Parser {
  private depth = 0;
  constructor(readonly lex: L.SqlLexer) {}

  private expect(kind: number, what: string): L.Token {
    const t = this.lex.peek(1);
    if (t.kind !== kind) this.unexpected(t, what);
    return this.lex.next();
  }

  private unexpected(t: L.Token, what: string): never {
    throw new SqlSyntaxError(`expected ${what}, found ${L.describeToken(t)}`, t.start, "syntax");
  }

  /** SelectorParser#asBooleanExpression: a property is cast to Boolean, a number/string/negation is an error. */
  asBoolean(n: SqlNode): SqlNode {
    if (isBooleanExpression(n)) return n;
    if (n.op === E.OP_PROP) return makeNode(E.OP_CAST, n.pos, n, null);
    return semantic("expression will not result in a boolean value", n.pos);
  }

  orExpression(): SqlNode {
    let left = this.andExpression();
    while (this.lex.peek(1).kind === L.T_OR) {
      this.lex.next();
      const right = this.andExpression();
      left = makeNode(E.OP_OR, left.pos, this.asBoolean(left), this.asBoolean(right));
    }
    return left;
  }

  private andExpression(): SqlNode {
    let left = this.equalityExpression();
    while (this.lex.peek(1).kind === L.T_AND) {
      this.lex.next();
      const right = this.equalityExpression();
      left = makeNode(E.OP_AND, left.pos, this.asBoolean(left), this.asBoolean(right));
    }
    return left;
  }

  private equalityExpression(): SqlNode {
    let left = this.comparisonExpression();
    for (;;) {
      const t = this.lex.peek(1);
      if (t.kind === L.T_EQ || t.kind === L.T_NE) {
        this.lex.next();
        const eq = createEqual(left, this.comparisonExpression());
        left = t.kind === L.T_EQ ? eq : makeNode(E.OP_NOT, left.pos, eq, null);
      } else if (t.kind === L.T_IS) {
        this.lex.next();
        const not = this.lex.peek(1).kind === L.T_NOT; // LOOKAHEAD(2) <IS> <NULL>, else <IS> <NOT> <NULL>
        if (not) this.lex.next();
        else if (this.lex.peek(1).kind !== L.T_NULL) this.unexpected(this.lex.peek(1), "NULL or NOT NULL after IS");
        this.expect(L.T_NULL, "NULL");
        const isNull = makeNode(E.OP_EQ, left.pos, left, nullConstant(t.start)); // createIsNull
        left = not ? makeNode(E.OP_NOT, left.pos, isNull, null) : isNull;
      } else {
        return left;
      }
    }
  }

  private comparisonExpression(): SqlNode {
    let left = this.unaryExpr();
    for (;;) {
      const t = this.lex.peek(1);
      let op = -1;
      switch (t.kind) {
        case L.T_GT: op = E.OP_GT; break;
        case L.T_GE: op = E.OP_GE; break;
        case L.T_LT: op = E.OP_LT; break;
        case L.T_LE: op = E.OP_LE; break;
      }
      if (op >= 0) {
        this.lex.next();
        left = createOrder(op, left, this.unaryExpr());
        continue;
      }
      let not = false;
      let kind = t.kind;
      if (kind === L.T_NOT) {
        kind = this.lex.peek(2).kind; // LOOKAHEAD(2): NOT must be followed by one of these
        if (!isNegatable(kind)) this.unexpected(t, "BETWEEN, IN, CONTAINS, STARTSWITH or ENDSWITH after NOT");
        this.lex.next();
        not = true;
      } else if (!isNegatable(kind)) {
        return left;
      }
      this.lex.next();
      if (kind === L.T_BETWEEN) left = this.between(left, not, t.start);
      else if (kind === L.T_IN) left = this.inList(left, not);
      else left = this.stringTest(left, kind, not);
    }
  }

  private between(value: SqlNode, not: boolean, at: number): SqlNode {
    const low = this.unaryExpr();
    this.expect(L.T_AND, "AND in BETWEEN");
    const high = this.unaryExpr();
    if (not) {
      // ComparisonExpression#createNotBetween: value < low OR value > high, no check of the bounds' order.
      return makeNode(E.OP_OR, value.pos, createOrder(E.OP_LT, value, low), createOrder(E.OP_GT, value, high));
    }
    // ComparisonExpression#createBetween: two literal bounds must be non-null and low <= high.
    if (isConst(low) && isConst(high)) {
      if (low.kind === E.K_NULL || high.kind === E.K_NULL) semantic("BETWEEN bounds can not be NULL", at);
      const c = E.compareValues(high.kind, high.num, high.long, high.str, high.strNum,
        low.kind, low.num, low.long, low.str, low.strNum);
      if (c === E.COMPARE_ERROR || c < 0) semantic("BETWEEN lower bound must be less than or equal to the upper bound", at);
    }
    return makeNode(E.OP_AND, value.pos, createOrder(E.OP_GE, value, low), createOrder(E.OP_LE, value, high));
  }

  // "(" stringLitteral ("," stringLitteral)* ")"; the left side must be a property (createInFilter).
  private inList(left: SqlNode, not: boolean): SqlNode {
    this.expect(L.T_LPAREN, "'(' after IN");
    const list: string[] = [this.expect(L.T_STRING, "a string literal in the IN list").text];
    while (this.lex.peek(1).kind === L.T_COMMA) {
      this.lex.next();
      list.push(this.expect(L.T_STRING, "a string literal in the IN list").text);
    }
    this.expect(L.T_RPAREN, "',' or ')' in the IN list");
    if (left.op !== E.OP_PROP) semantic("IN needs a property on its left", left.pos);
    return { ...makeNode(E.OP_IN, left.pos, left, null), kind: not ? 1 : 0, list, listNum: list.map(numberForm) };
  }

  private stringTest(left: SqlNode, kind: number, not: boolean): SqlNode {
    const search = this.expect(L.T_STRING, "a string literal").text;
    const op = kind === L.T_CONTAINS ? E.OP_CONTAINS : kind === L.T_STARTSWITH ? E.OP_STARTSWITH : E.OP_ENDSWITH;
    return { ...makeNode(op, left.pos, left, null), kind: not ? 1 : 0, str: search, strNum: numberForm(search) };
  }

  private unaryExpr(): SqlNode {
    const t = this.lex.peek(1);
    // Parentheses and unary operators nest; each level costs a parser frame (and an evaluator frame).
    const nests = t.kind === L.T_LPAREN || t.kind === L.T_NOT || t.kind === L.T_MINUS || t.kind === L.T_PLUS;
    if (nests && ++this.depth > SQL_NESTING_MAX) {
      throw new SqlSyntaxError(`expression nested deeper than ${SQL_NESTING_MAX} levels`, t.start, "limit");
    }
    let node: SqlNode;
    if (t.kind === L.T_PLUS) {
      // LOOKAHEAD("+" unaryExpr()): when what follows is not an operand, RocketMQ reports the '+' itself.
      this.lex.next();
      try {
        node = this.unaryExpr();
      } catch (e) {
        if (e instanceof SqlSyntaxError && e.kind === "syntax") this.unexpected(t, "an operand");
        throw e;
      }
    } else if (t.kind === L.T_MINUS) {
      this.lex.next();
      node = makeNode(E.OP_NEG, t.start, this.unaryExpr(), null);
    } else if (t.kind === L.T_NOT) {
      this.lex.next();
      node = makeNode(E.OP_NOT, t.start, this.asBoolean(this.unaryExpr()), null);
    } else {
      node = this.primaryExpr();
    }
    if (nests) this.depth--;
    return node;
  }

  private primaryExpr(): SqlNode {
    const t = this.lex.next();
    switch (t.kind) {
      case L.T_ID: return { ...makeNode(E.OP_PROP, t.start, null, null), str: t.text };
      case L.T_LPAREN: {
        const inner = this.orExpression();
        this.expect(L.T_RPAREN, "')'");
        return inner;
      }
      case L.T_STRING: return { ...constant(E.K_STR, t.start), str: t.text, strNum: numberForm(t.text) };
      case L.T_DECIMAL: return decimalLiteral(t);
      case L.T_FLOAT: return floatLiteral(t);
      case L.T_TRUE: return { ...constant(E.K_BOOL, t.start), num: 1 };
      case L.T_FALSE: return constant(E.K_BOOL, t.start);
      case L.T_NULL: return nullConstant(t.start);
      default: return this.unexpected(t, "a property, literal, '(' or unary operator");
    }
  }
}

function isNegatable(kind: number): boolean {
  return kind === L.T_BETWEEN || kind === L.T_IN || kind === L.T_CONTAINS || kind === L.T_STARTSWITH ||
    kind === L.T_ENDSWITH;
}

function constant(kind: number, pos: number): SqlNode {
  return { ...makeNode(E.OP_CONST, pos, null, null), kind };
}

function nullConstant(pos: number): SqlNode {
  return constant(E.K_NULL, pos);
}

// ConstantExpression#createFromDecimal: strip l/L; Long range or error; Integer when it fits.
function decimalLiteral(t: L.Token): SqlNode {
  const digits = t.text.replace(/[lL]$/, "");
  const big = BigInt(digits);
  if (big > LONG_MAX) semantic(`number ${t.text} is out of the long range`, t.start);
  const n = Number(big);
  if (n >= INT_MIN && n <= INT_MAX) return { ...constant(E.K_INT, t.start), num: n };
  return { ...constant(E.K_LONG, t.start), long: Number.isSafeInteger(n) ? n : big };
}

// ConstantExpression#createFloat: new Double(text), rejected when above Double.MAX_VALUE or below
// Double.MIN_VALUE (4.9e-324) — so a literal 0.0 (or one that underflows to 0) does not compile.
function floatLiteral(t: L.Token): SqlNode {
  const v = Number(t.text);
  if (v === Infinity) semantic(`number ${t.text} is greater than Double.MAX_VALUE`, t.start);
  if (v < Number.MIN_VALUE) semantic(`number ${t.text} is less than Double.MIN_VALUE`, t.start);
  return { ...constant(E.K_DOUBLE, t.start), num: v };
}

// ComparisonExpression#checkLessThanOperand: a literal must be numeric; a Boolean expression can't be ordered.
function checkLessThanOperand(n: SqlNode): void {
  if (isConst(n)) {
    if (n.kind !== E.K_INT && n.kind !== E.K_LONG && n.kind !== E.K_DOUBLE) {
      semantic("only numbers can be compared with >, >=, <, <=, BETWEEN", n.pos);
    }
  } else if (isBooleanExpression(n)) {
    semantic("a boolean expression can not be compared with >, >=, <, <=, BETWEEN", n.pos);
  }
}

function createOrder(op: number, left: SqlNode, right: SqlNode): SqlNode {
  checkLessThanOperand(left);
  checkLessThanOperand(right);
  return makeNode(op, left.pos, left, right);
}

// ComparisonExpression#createEqual: no NULL literal on either side (use IS NULL), and a TRUE/FALSE literal on
// the left can only meet another Boolean literal.
function createEqual(left: SqlNode, right: SqlNode): SqlNode {
  for (const n of [left, right]) {
    if (isConst(n) && n.kind === E.K_NULL) semantic("NULL can not be compared with = or <>; use IS NULL", n.pos);
  }
  if (isConst(left) && isConst(right) && left.kind === E.K_BOOL && right.kind !== E.K_BOOL) {
    semantic("a TRUE/FALSE literal can only be compared with another TRUE/FALSE literal", right.pos);
  }
  return makeNode(E.OP_EQ, left.pos, left, right);
}
