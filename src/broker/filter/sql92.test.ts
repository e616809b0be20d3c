// The SQL92 filter evaluator (issue 19): each expected value is derived from the rule of the RocketMQ class named
// in the row (org.apache.rocketmq.filter.expression.*, parser/SelectorParser.jj; 4.9.7 and 5.x HEAD agree on
// everything here except CONTAINS/STARTSWITH/ENDSWITH, 5.1.3+). "ERROR" is a Java exception during evaluation,
// which ExpressionMessageFilter#isMatchedByCommitLog turns into "no match".
import { describe, expect, it } from "vitest";
import {
  compileSql, evaluateSql, evaluateSqlValue, SQL_NESTING_MAX, SQL_TEXT_CHARS_MAX, SqlSyntaxError, sqlProperties,
  type SqlProfile,
} from "./sql92.ts";

type Props = Record<string, string | number | boolean>;
type Row = [text: string, props: Props, expected: "TRUE" | "FALSE" | "NULL" | "ERROR", why: string];

function value(text: string, props: Props, profile: SqlProfile = "5.x"): string {
  return evaluateSqlValue(compileSql(text, { profile }), (n) => props[n] ?? null);
}

function table(rows: Row[]): void {
  it.each(rows)("%s with %j is %s (%s)", (text, props, expected) => {
    expect(value(text, props)).toBe(expected);
    expect(evaluateSql(compileSql(text), (n) => props[n] ?? null)).toBe(expected === "TRUE");
  });
}

describe("comparison operators on String properties (ComparisonExpression, convertStringExpressions on)", () => {
  table([
    ["a > 5", { a: "7" }, "TRUE", "__compare: String vs Integer → Integer.valueOf(\"7\") = 7 > 5"],
    ["a > 5", { a: "5" }, "FALSE", "5 > 5 is false"],
    ["a >= 5", { a: "5" }, "TRUE", "compareTo 0 → >= holds"],
    ["a < 5", { a: "-3" }, "TRUE", "Integer.valueOf accepts a sign"],
    ["a <= 5", { a: "6" }, "FALSE", "6 <= 5 is false"],
    ["a = 5", { a: "5" }, "TRUE", "doCreateEqual: equals() fails (String vs Integer), __compare gives 0"],
    ["a = 5", { a: "6" }, "FALSE", "__compare gives 1"],
    ["a <> 5", { a: "6" }, "TRUE", "createNotEqual = NOT(equal)"],
    ["a <> 5", { a: "5" }, "FALSE", "NOT TRUE"],
    ["a = 'eu'", { a: "eu" }, "TRUE", "String.equals"],
    ["a = 'eu'", { a: "EU" }, "FALSE", "String.equals is case-sensitive"],
    ["a <> 'eu'", { a: "us" }, "TRUE", "NOT FALSE"],
    ["a > 5", { a: "+7" }, "TRUE", "Integer.valueOf(\"+7\") = 7"],
    ["a > 5", { a: "0007" }, "TRUE", "Integer.valueOf ignores leading zeros"],
    ["5 < a", { a: "7" }, "TRUE", "Integer on the left converts the right String the same way"],
    ["a > b", { a: "10", b: "9" }, "TRUE", "two Strings: Double.valueOf both, 10.0 > 9.0 (not string order)"],
    ["a = b", { a: "x", b: "x" }, "TRUE", "equals"],
    ["a = TRUE", { a: "true" }, "TRUE", "String vs Boolean: Boolean.valueOf(\"true\")"],
    ["a = TRUE", { a: "TRUE" }, "TRUE", "Boolean.valueOf ignores case"],
    ["a = FALSE", { a: "yes" }, "TRUE", "Boolean.valueOf(\"yes\") is false"],
    ["TRUE = TRUE", {}, "TRUE", "Boolean literals compare with equals"],
    ["1 = TRUE", {}, "FALSE", "__compare: Integer vs Boolean → -1, not equal"],
  ]);
});

describe("type mismatches raise in Java and so never match", () => {
  table([
    ["a > 5", { a: "7.5" }, "ERROR", "Integer.valueOf(\"7.5\") throws NumberFormatException"],
    ["a = 5", { a: "abc" }, "ERROR", "Integer.valueOf(\"abc\") throws even for ="],
    ["a <> 5", { a: "abc" }, "ERROR", "the NOT of a throwing comparison still throws"],
    ["NOT (a = 5)", { a: "abc" }, "ERROR", "UnaryExpression#createNOT does not catch"],
    ["a > 5", { a: " 7" }, "ERROR", "Integer.valueOf does not trim"],
    ["a > 5.0", { a: " 7" }, "TRUE", "Double.valueOf trims (FloatingDecimal)"],
    ["a > 5", { a: "3000000000" }, "ERROR", "5 is an Integer literal; Integer.valueOf overflows"],
    ["a > b", { a: "x", b: "1" }, "ERROR", "two Strings with >: Double.valueOf(\"x\") throws"],
    ["a = 5 OR b = 'x'", { a: "abc", b: "x" }, "ERROR", "OR evaluates the left side first, which throws"],
    ["b = 'x' OR a = 5", { a: "abc", b: "x" }, "TRUE", "OR short-circuits on TRUE before the throwing side"],
    ["b = 'y' AND a = 5", { a: "abc", b: "x" }, "FALSE", "AND short-circuits on FALSE"],
    ["(a = 1) = 'true'", { a: "1" }, "ERROR", "__compare: Boolean left vs String casts the Boolean to String"],
    ["-a > 5", { a: "7" }, "NULL", "createNegate of a String is null"],
    ["a", { a: "true" }, "FALSE", "createBooleanCast: a String is never a Boolean"],
    ["a AND b", { a: "true", b: "true" }, "FALSE", "both casts are FALSE"],
  ]);
});

describe("NULL semantics (absent properties, IS NULL, Kleene logic)", () => {
  table([
    ["a > 5", {}, "NULL", "ComparisonExpression#evaluate: a null side is null"],
    ["5 > a", {}, "NULL", "the right side null is null too"],
    ["a = 5", {}, "NULL", "doCreateEqual: a null LEFT side gives null"],
    ["5 = a", {}, "FALSE", "doCreateEqual: a null RIGHT side against a value gives FALSE"],
    ["a = b", {}, "TRUE", "doCreateEqual: two nulls are equal (lv == rv)"],
    ["a <> b", { a: "x" }, "TRUE", "x = null is FALSE, NOT gives TRUE"],
    ["a <> 5", {}, "NULL", "NOT null is null"],
    ["a IS NULL", {}, "TRUE", "createIsNull = doCreateEqual(a, NULL)"],
    ["a IS NULL", { a: "" }, "FALSE", "an empty String is a value"],
    ["a IS NOT NULL", { a: "x" }, "TRUE", "NOT(FALSE)"],
    ["a IS NOT NULL", {}, "FALSE", "NOT(TRUE)"],
    ["NOT (a > 5)", {}, "NULL", "NOT of null"],
    ["a > 5 AND b = 'x'", { b: "x" }, "NULL", "null AND TRUE is null"],
    ["a > 5 AND b = 'x'", { b: "y" }, "FALSE", "null AND FALSE is FALSE"],
    ["a > 5 OR b = 'x'", { b: "x" }, "TRUE", "null OR TRUE is TRUE"],
    ["a > 5 OR b = 'x'", { b: "y" }, "NULL", "null OR FALSE is null"],
    ["NULL", {}, "NULL", "the NULL literal is a BooleanConstantExpression"],
    ["TRUE", {}, "TRUE", "matches everything"],
    ["NULL IS NULL", {}, "TRUE", "IS NULL accepts any operand"],
    ["5 IS NULL", {}, "FALSE", "a value is not null"],
    ["a", {}, "NULL", "the cast of null is null"],
  ]);
});

describe("Long vs Double", () => {
  table([
    ["a > 5.5", { a: "6" }, "TRUE", "String vs Double → Double.valueOf(\"6\")"],
    ["a > 5.5", { a: "5.5" }, "FALSE", "equal doubles"],
    ["a = 5.0", { a: "5" }, "TRUE", "Double.valueOf(\"5\") = 5.0"],
    ["a = 5", { a: "5.0" }, "ERROR", "Integer.valueOf(\"5.0\") throws"],
    ["5 = 5.0", {}, "TRUE", "Integer vs Double widens to Double"],
    ["a > 2147483648", { a: "3000000000" }, "TRUE", "a literal beyond int is a Long: Long.valueOf"],
    ["a < 9223372036854775807", { a: "9223372036854775806" }, "TRUE", "exact 64-bit comparison"],
    ["a = 9223372036854775807", { a: "9223372036854775806" }, "FALSE", "no rounding through double"],
    ["a > 2147483648", { a: "9223372036854775808" }, "ERROR", "Long.valueOf overflows"],
    ["9007199254740993 > 9007199254740992.0", {}, "FALSE", "Long vs Double: the Long becomes a double (2^53)"],
    ["a > b", { a: "0.0", b: "-0.0" }, "TRUE", "two Strings as doubles: Double.compare puts 0.0 above -0.0"],
    ["a = 0", { a: "-0" }, "TRUE", "Integer.valueOf(\"-0\") is 0"],
    ["a > 1.5", { a: "NaN" }, "TRUE", "Double.compare puts NaN above every number"],
    ["a > 1.5", { a: "2d" }, "TRUE", "Double.valueOf accepts a d/f suffix"],
    ["a = 5L", { a: "5" }, "TRUE", "5L is an Integer after createFromDecimal strips the L"],
    ["-a < 0", { a: "5" }, "NULL", "a negated String is null"],
    ["a > -5", { a: "-3" }, "TRUE", "unary minus on an Integer literal"],
  ]);
});

describe("precedence: unary NOT > comparisons > equality > AND > OR", () => {
  table([
    ["a = 1 OR b = 1 AND c = 1", { a: "1", b: "0", c: "0" }, "TRUE", "AND binds tighter: a=1 OR (b=1 AND c=1)"],
    ["(a = 1 OR b = 1) AND c = 1", { a: "1", b: "0", c: "0" }, "FALSE", "parentheses group first"],
    ["NOT a = 1 OR b = 1", { a: "0", b: "1" }, "TRUE", "(NOT a) = 1 is FALSE, OR TRUE"],
    ["NOT a = 1", { a: "0" }, "FALSE", "unaryExpr: (NOT cast(a)) = 1 → TRUE = 1 → __compare -1 → FALSE"],
    ["NOT (a = 1)", { a: "0" }, "TRUE", "with parentheses NOT applies to the comparison"],
    ["NOT a = 1", {}, "NULL", "NOT of a null cast is null; null = 1 is null"],
    ["a = 1 AND NOT b = 2 OR c = 3", { a: "1", b: "2", c: "3" }, "TRUE", "OR lowest"],
  ]);
});

describe("BETWEEN and IN", () => {
  table([
    ["a BETWEEN 1 AND 5", { a: "1" }, "TRUE", "createBetween = a >= 1 AND a <= 5: bounds inclusive"],
    ["a BETWEEN 1 AND 5", { a: "5" }, "TRUE", "upper bound inclusive"],
    ["a BETWEEN 1 AND 5", { a: "6" }, "FALSE", "above"],
    ["a BETWEEN 1 AND 5", { a: "0" }, "FALSE", "below"],
    ["a BETWEEN 1 AND 5", {}, "NULL", "null AND null"],
    ["a NOT BETWEEN 1 AND 5", { a: "6" }, "TRUE", "createNotBetween = a < 1 OR a > 5"],
    ["a NOT BETWEEN 1 AND 5", { a: "5" }, "FALSE", "inclusive bound"],
    ["a NOT BETWEEN 1 AND 5", {}, "NULL", "null OR null"],
    ["a NOT BETWEEN 5 AND 1", { a: "3" }, "TRUE", "no order check for NOT BETWEEN: 3 < 5"],
    ["a BETWEEN -5 AND -1", { a: "-3" }, "TRUE", "negated bounds are not literals, still inclusive range"],
    ["a IN ('x', 'y')", { a: "y" }, "TRUE", "createInExpression: list membership"],
    ["a IN ('x', 'y')", { a: "z" }, "FALSE", "not a member"],
    ["a IN ('x', 'y')", {}, "NULL", "null operand is null"],
    ["a NOT IN ('x', 'y')", { a: "z" }, "TRUE", "membership XOR not"],
    ["a NOT IN ('x', 'y')", {}, "NULL", "NOT IN of null is null too"],
    ["a IN ('5')", { a: "5.0" }, "FALSE", "IN compares Strings, no number conversion"],
    ["a IN ('it''s')", { a: "it's" }, "TRUE", "'' is a quote"],
  ]);
});

describe("CONTAINS, STARTSWITH, ENDSWITH (5.1.3+)", () => {
  table([
    ["a CONTAINS 'b'", { a: "abc" }, "TRUE", "ContainsExpression"],
    ["a NOT CONTAINS 'b'", { a: "abc" }, "FALSE", "NotContainsExpression"],
    ["a STARTSWITH 'ab'", { a: "abc" }, "TRUE", "StartsWithExpression"],
    ["a ENDSWITH 'bc'", { a: "abc" }, "TRUE", "EndsWithExpression"],
    ["a NOT ENDSWITH 'x'", { a: "abc" }, "TRUE", "negated"],
    ["a CONTAINS 'b'", {}, "FALSE", "null operand is FALSE, not null"],
    ["a NOT CONTAINS 'b'", {}, "FALSE", "and FALSE for the NOT form as well"],
    ["a CONTAINS ''", { a: "abc" }, "FALSE", "an empty search text is FALSE"],
    ["a NOT STARTSWITH ''", { a: "abc" }, "FALSE", "also for the NOT form"],
    ["(a = 1) CONTAINS 'T'", { a: "1" }, "FALSE", "a Boolean operand is not a String"],
  ]);

  it("are identifiers in the 4.x grammar, so the rest of the text is ignored", () => {
    // In 4.9.7 CONTAINS is an <ID>; JmsSelector stops after "a", which is cast to Boolean: FALSE for any String.
    const expr = compileSql("a CONTAINS 'b'", { profile: "4.9" });
    expect(expr.ignoredFrom).toBe(2);
    expect(value("a CONTAINS 'b'", { a: "abc" }, "4.9")).toBe("FALSE");
    expect(value("a CONTAINS 'b'", { a: "abc" }, "5.x")).toBe("TRUE");
    // 4.7.1's filter module differs from 4.9.7's only in annotations; "NOT CONTAINS" is no valid NOT there.
    expect(() => compileSql("a NOT CONTAINS 'b'", { profile: "4.7" })).toThrow("position 2");
  });
});

describe("numbers and booleans from the model stand for their String(n) text", () => {
  const texts = ["a > 5", "a = 5", "a = 5.0", "a > 2147483648", "a IN ('5', '7.5')", "a = '5'", "a BETWEEN 1 AND 10",
    "a STARTSWITH '1'", "a = b", "a > b", "a <> 5", "a < 1.5"];
  const numbers = [5, 7, 7.5, -0, 0, 3e9, 2 ** 60, 1e21, NaN, Infinity, -2147483648, 1e-7];
  it.each(texts)("%s gives the same value for n and String(n)", (text) => {
    const expr = compileSql(text);
    for (const n of numbers) {
      const viaNumber = evaluateSqlValue(expr, (k) => (k === "a" ? n : k === "b" ? 3 : null));
      const viaText = evaluateSqlValue(expr, (k) => (k === "a" ? String(n) : k === "b" ? "3" : null));
      expect(viaNumber, `${text} with ${n}`).toBe(viaText);
    }
  });

  it("a boolean property is the text true/false", () => {
    expect(value("a = 'true'", { a: true })).toBe("TRUE");
    expect(value("a = TRUE", { a: false })).toBe("FALSE");
    expect(value("a > 1", { a: true })).toBe("ERROR"); // Integer.valueOf("true") throws
  });
});

describe("compile errors: SqlSyntaxError with the 0-based position", () => {
  const rows: [string, number][] = [
    ["", 0], // nothing to parse: end of input
    ["a >", 3], // missing operand at end of input
    ["a = = 1", 4], // second '=' cannot start an operand
    ["(a = 1", 6], // missing ')'
    ["a IN ()", 6], // the list needs a string literal
    ["a IN (1, 2)", 6], // IN lists hold string literals only
    ["a IN ('x' 'y')", 10], // missing ',' — position of the second literal
    ["'abc", 0], // unterminated string literal
    ["a ! 1", 2], // '!' is no token (use <>)
    ["a != 1", 2], // same
    ["a NOT LIKE 'x'", 2], // NOT must be followed by BETWEEN/IN/...: RocketMQ reports the NOT
    ["a BETWEEN 1 OR 5", 12], // BETWEEN needs AND
    ["a IS 5", 5], // IS must be followed by NULL or NOT NULL
    ["a > 'x'", 4], // checkLessThanOperand: a string literal cannot be ordered
    ["a > TRUE", 4], // nor a Boolean literal
    ["a = NULL", 4], // checkEqualOperand: use IS NULL
    ["TRUE = 1", 7], // checkEqualOperandCompatability
    ["5", 0], // asBooleanExpression: a number is not a condition
    ["a = 1 AND 'x'", 10], // nor a string
    ["a BETWEEN 5 AND 1", 2], // createBetween: low must be <= high
    ["-a IN ('x')", 0], // createInFilter: the left side must be a property
    ["a > 9223372036854775808", 4], // createFromDecimal: beyond Long.MAX_VALUE
    ["a > 0.0", 4], // createFloat: below Double.MIN_VALUE
    ["a > 1e400", 4], // createFloat: above Double.MAX_VALUE
    ["a > . 5", 4], // '.' must start a number
    ["/* open", 0], // unterminated block comment
    ["a > + )", 4], // LOOKAHEAD("+" unaryExpr()) fails: RocketMQ reports the '+'
    ["a CONTAINS x", 11], // the search text must be a string literal (5.x)
    ["(a > 5) > 1", 1], // a Boolean expression cannot be ordered
  ];
  it.each(rows)("%j fails at %i", (text, position) => {
    let error: unknown;
    try {
      compileSql(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SqlSyntaxError);
    expect((error as SqlSyntaxError).position).toBe(position);
    expect((error as SqlSyntaxError).message).toContain(`position ${position}`);
  });
});

describe("what RocketMQ's grammar tolerates", () => {
  it("ignores text after a complete expression (JmsSelector does not demand end of input)", () => {
    const expr = compileSql("a > 5 ) garbage");
    expect(expr.ignoredFrom).toBe(6);
    expect(evaluateSql(expr, () => "7")).toBe(true);
    expect(compileSql("a > 5").ignoredFrom).toBe(-1);
  });

  it("reads keywords in any case, comments, and integer suffixes", () => {
    expect(value("a between 1 and 5 aNd b is not null -- note\n", { a: "3", b: "x" })).toBe("TRUE");
    expect(value("/* c */ a > 5L", { a: "6" })).toBe("TRUE");
    expect(value("$x_1 = 'v'", { $x_1: "v" })).toBe("TRUE");
  });

  it("reads 0x10 as 0 followed by an ignored identifier (no hex literals)", () => {
    const expr = compileSql("a > 0x10");
    expect(expr.ignoredFrom).toBe(5);
    expect(evaluateSql(expr, () => "1")).toBe(true);
  });
});

describe("limits", () => {
  it(`rejects text longer than ${SQL_TEXT_CHARS_MAX} characters at that position`, () => {
    const long = "a = 1" + " ".repeat(SQL_TEXT_CHARS_MAX);
    expect(() => compileSql(long)).toThrow(SqlSyntaxError);
    expect(() => compileSql(long)).toThrow(`position ${SQL_TEXT_CHARS_MAX}`);
    expect(compileSql("a = 1" + " ".repeat(SQL_TEXT_CHARS_MAX - 5)).ignoredFrom).toBe(-1);
  });

  it(`accepts ${SQL_NESTING_MAX} nested parentheses or unary operators and rejects one more at its token`, () => {
    const nested = (n: number) => "(".repeat(n) + "a = 1" + ")".repeat(n);
    expect(value(nested(SQL_NESTING_MAX), { a: "1" })).toBe("TRUE");
    // The (SQL_NESTING_MAX + 1)-th '(' sits at index SQL_NESTING_MAX.
    expect(() => compileSql(nested(SQL_NESTING_MAX + 1))).toThrow(`position ${SQL_NESTING_MAX}`);
    // NOT NOT ... a: an even count of NOTs over a cast String is NOT(NOT(FALSE)) = FALSE.
    expect(value("NOT ".repeat(SQL_NESTING_MAX) + "a", { a: "x" })).toBe("FALSE");
    expect(() => compileSql("NOT ".repeat(SQL_NESTING_MAX + 1) + "a")).toThrow(`position ${4 * SQL_NESTING_MAX}`);
  });
});

describe("sqlProperties", () => {
  it("lists the referenced properties sorted and unique", () => {
    expect(sqlProperties(compileSql("region = 'eu' AND a > 5 OR a < 2 AND b IS NULL"))).toEqual(["a", "b", "region"]);
    expect(sqlProperties(compileSql("TRUE"))).toEqual([]);
  });
});
