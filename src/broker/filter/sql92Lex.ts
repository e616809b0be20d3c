// The token rules of RocketMQ's SelectorParser.jj (filter module; the JavaCC grammar), read lazily the way the
// generated parser does: a token is only scanned when the parser looks at it, so text after the expression's
// last looked-at token is never examined (RocketMQ accepts "a > 5 )" as "a > 5").
import { SqlSyntaxError, type SqlProfile } from "./sql92Types.ts";

export const T_EOF = 0, T_NOT = 1, T_AND = 2, T_OR = 3, T_BETWEEN = 4, T_IN = 5, T_TRUE = 6, T_FALSE = 7,
  T_NULL = 8, T_IS = 9, T_CONTAINS = 10, T_STARTSWITH = 11, T_ENDSWITH = 12, T_DECIMAL = 13, T_FLOAT = 14,
  T_STRING = 15, T_ID = 16, T_EQ = 17, T_NE = 18, T_GT = 19, T_GE = 20, T_LT = 21, T_LE = 22, T_LPAREN = 23,
  T_COMMA = 24, T_RPAREN = 25, T_PLUS = 26, T_MINUS = 27;

export interface Token {
  readonly kind: number;
  readonly start: number;
  /** The token's text; for a string literal, its decoded value ('' → '). */
  readonly text: string;
}

// Reserved words, matched ignoring case; CONTAINS / STARTSWITH / ENDSWITH only from 5.1.3 (commits 3ac885705d,
// 867c296150): in 4.x they are ordinary identifiers.
const KEYWORDS: Record<string, number> = {
  NOT: T_NOT, AND: T_AND, OR: T_OR, BETWEEN: T_BETWEEN, IN: T_IN, TRUE: T_TRUE, FALSE: T_FALSE, NULL: T_NULL,
  IS: T_IS,
};
const KEYWORDS_5X: Record<string, number> = { CONTAINS: T_CONTAINS, STARTSWITH: T_STARTSWITH, ENDSWITH: T_ENDSWITH };

export function describeToken(t: Token): string {
  if (t.kind === T_EOF) return "end of input";
  if (t.kind === T_STRING) return `string literal`;
  return `'${t.text}'`;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

// ID: ["a"-"z", "_", "$"] (["a"-"z","0"-"9","_", "$"])* with IGNORE_CASE.
function isIdStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 36;
}

function isIdPart(c: number): boolean {
  return isIdStart(c) || isDigit(c);
}

export class SqlLexer {
  private pos = 0;
  private readonly buffer: Token[] = [];

  constructor(private readonly text: string, private readonly profile: SqlProfile) {}

  /** The k-th token from the current one (k ≥ 1), scanning as needed; lexical errors surface here. */
  peek(k: number): Token {
    while (this.buffer.length < k) this.buffer.push(this.scan());
    return this.buffer[k - 1] as Token;
  }

  next(): Token {
    const t = this.peek(1);
    this.buffer.shift();
    return t;
  }

  private fail(message: string, at: number): never {
    throw new SqlSyntaxError(message, at, "lexical");
  }

  private skipBlanks(): void {
    const s = this.text;
    for (;;) {
      const c = s.charCodeAt(this.pos);
      // SPECIAL_TOKEN: " " | "\t" | "\n" | "\r" | "\f"
      if (c === 32 || c === 9 || c === 10 || c === 13 || c === 12) {
        this.pos++;
      } else if (c === 45 && s.charCodeAt(this.pos + 1) === 45) {
        // LINE_COMMENT needs its line end; without one the longest match is the token "-".
        let end = this.pos + 2;
        while (end < s.length && s.charCodeAt(end) !== 10 && s.charCodeAt(end) !== 13) end++;
        if (end >= s.length) return;
        this.pos = end + 1;
      } else if (c === 47 && s.charCodeAt(this.pos + 1) === 42) {
        const end = s.indexOf("*/", this.pos + 2);
        if (end < 0) this.fail("unterminated /* comment", this.pos);
        this.pos = end + 2;
      } else {
        return;
      }
    }
  }

  private scan(): Token {
    this.skipBlanks();
    const s = this.text;
    const start = this.pos;
    if (start >= s.length) return { kind: T_EOF, start, text: "" };
    const c = s.charCodeAt(start);
    if (isDigit(c) || c === 46) return this.scanNumber(start);
    if (c === 39) return this.scanString(start);
    if (isIdStart(c)) {
      let end = start + 1;
      while (end < s.length && isIdPart(s.charCodeAt(end))) end++;
      this.pos = end;
      const text = s.slice(start, end);
      const upper = text.toUpperCase();
      const kw = KEYWORDS[upper] ?? (this.profile === "5.x" ? KEYWORDS_5X[upper] : undefined);
      return { kind: kw ?? T_ID, start, text };
    }
    const c1 = s.charCodeAt(start + 1);
    let kind = -1;
    let len = 1;
    if (c === 61) kind = T_EQ;
    else if (c === 60) [kind, len] = c1 === 62 ? [T_NE, 2] : c1 === 61 ? [T_LE, 2] : [T_LT, 1];
    else if (c === 62) [kind, len] = c1 === 61 ? [T_GE, 2] : [T_GT, 1];
    else if (c === 40) kind = T_LPAREN;
    else if (c === 44) kind = T_COMMA;
    else if (c === 41) kind = T_RPAREN;
    else if (c === 43) kind = T_PLUS;
    else if (c === 45) kind = T_MINUS;
    if (kind < 0) this.fail(`unexpected character ${JSON.stringify(s[start])}`, start);
    this.pos = start + len;
    return { kind, start, text: s.slice(start, start + len) };
  }

  private digitsEnd(i: number): number {
    while (i < this.text.length && isDigit(this.text.charCodeAt(i))) i++;
    return i;
  }

  /** End of an EXPONENT ("E" ["+","-"]? digits+, any case) starting at i, or -1. */
  private exponentEnd(i: number): number {
    const s = this.text;
    if (s.charCodeAt(i) !== 101 && s.charCodeAt(i) !== 69) return -1;
    let j = i + 1;
    if (s.charCodeAt(j) === 43 || s.charCodeAt(j) === 45) j++;
    const end = this.digitsEnd(j);
    return end > j ? end : -1;
  }

  // DECIMAL_LITERAL: "0" | ["1"-"9"] (["0"-"9"])* (["l","L"])?
  // FLOATING_POINT_LITERAL: digits+ "." digits* exp? | "." digits+ exp? | digits+ exp. Longest match wins.
  private scanNumber(start: number): Token {
    const s = this.text;
    const intEnd = this.digitsEnd(start);
    let floatEnd = -1;
    if (s.charCodeAt(intEnd) === 46) {
      const fracEnd = this.digitsEnd(intEnd + 1);
      if (intEnd > start || fracEnd > intEnd + 1) {
        const e = this.exponentEnd(fracEnd);
        floatEnd = e > 0 ? e : fracEnd;
      }
    } else if (intEnd > start) {
      floatEnd = this.exponentEnd(intEnd);
    }
    let decEnd = -1;
    if (intEnd > start) {
      if (s.charCodeAt(start) === 48) decEnd = start + 1;
      else {
        decEnd = intEnd;
        const c = s.charCodeAt(intEnd);
        if (c === 108 || c === 76) decEnd++;
      }
    }
    if (floatEnd < 0 && decEnd < 0) this.fail("'.' must be followed by a digit", start);
    const isFloat = floatEnd > decEnd;
    const end = isFloat ? floatEnd : decEnd;
    this.pos = end;
    return { kind: isFloat ? T_FLOAT : T_DECIMAL, start, text: s.slice(start, end) };
  }

  // STRING_LITERAL: "'" ( "''" | ~["'"] )* "'". JavaCC keeps the longest text that forms a literal: every
  // quote after the opening one may close it, and a quote right after it turns the pair into an escape; when
  // the text ends inside an escape-opened run, the literal ends at the last quote that could close it.
  private scanString(start: number): Token {
    const s = this.text;
    let i = start + 1;
    let closeAt = -1;
    for (;;) {
      const q = s.indexOf("'", i);
      if (q < 0) break;
      closeAt = q;
      if (s.charCodeAt(q + 1) !== 39) break;
      i = q + 2;
    }
    if (closeAt < 0) this.fail("unterminated string literal", start);
    this.pos = closeAt + 1;
    // SelectorParser#stringLitteral: drop the quotes, read '' as one quote.
    return { kind: T_STRING, start, text: s.slice(start + 1, closeAt).replace(/''/g, "'") };
  }
}
