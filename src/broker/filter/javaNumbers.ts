// Java's String → number conversions as RocketMQ's ComparisonExpression#__compare applies them to String
// properties (Integer.valueOf, Long.valueOf, Double.valueOf, Boolean.valueOf), without allocation on the common
// paths. A failed conversion is a NumberFormatException in Java; here it is reported through `conversion.ok`.
// Divergence, documented: Java's Character.digit also accepts non-ASCII decimal digits (e.g. U+0663) and
// Double.valueOf accepts hexadecimal floats ("0x1p3"); both are treated as non-numeric here.

/** `ok` is false after a conversion that Java would reject with NumberFormatException (a plain object: cheap). */
export const conversion = { ok: true };

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Shape check shared by Integer.parseInt / Long.parseLong: optional sign, then one or more digits. */
function integerShape(s: string): boolean {
  const n = s.length;
  if (n === 0) return false;
  let i = 0;
  const c0 = s.charCodeAt(0);
  if (c0 === 43 || c0 === 45) i = 1; // '+' or '-'
  if (i === n) return false;
  for (; i < n; i++) if (!isDigit(s.charCodeAt(i))) return false;
  return true;
}

/** Integer.valueOf(String): sign and ASCII digits, within [-2^31, 2^31 - 1]. */
export function javaParseInt(s: string): number {
  conversion.ok = false;
  if (!integerShape(s)) return 0;
  // Number() is exact inside the int range, and anything outside it stays outside after rounding.
  const v = Number(s);
  if (!(v >= INT_MIN && v <= INT_MAX)) return 0;
  conversion.ok = true;
  return v === 0 ? 0 : v;
}

/** Long.valueOf(String): as parseInt, within [-2^63, 2^63 - 1]; a number when safe, else a bigint. */
export function javaParseLong(s: string): number | bigint {
  conversion.ok = false;
  if (!integerShape(s)) return 0;
  if (s.length <= 16) {
    const v = Number(s); // ≤ 15 digits plus a sign: exact and safe
    conversion.ok = true;
    return v === 0 ? 0 : v;
  }
  const c0 = s.charCodeAt(0);
  const big = c0 === 45 ? -BigInt(s.slice(1)) : BigInt(c0 === 43 ? s.slice(1) : s);
  if (big < LONG_MIN || big > LONG_MAX) return 0;
  conversion.ok = true;
  return normaliseLong(big);
}

export function normaliseLong(v: bigint): number | bigint {
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : v;
}

/** Double.valueOf(String) (FloatingDecimal#readJavaFormatString): trim, sign, NaN/Infinity, digits, suffix. */
export function javaParseDouble(s: string): number {
  conversion.ok = false;
  let b = 0;
  let e = s.length;
  while (b < e && s.charCodeAt(b) <= 32) b++; // String#trim removes every char ≤ U+0020
  while (e > b && s.charCodeAt(e - 1) <= 32) e--;
  if (b === e) return 0;
  let i = b;
  let negative = false;
  const c0 = s.charCodeAt(i);
  if (c0 === 43 || c0 === 45) {
    negative = c0 === 45;
    i++;
  }
  if (i < e && (s.charCodeAt(i) === 78 || s.charCodeAt(i) === 73)) return namedDouble(s, i, e, negative);
  let digits = 0;
  while (i < e && isDigit(s.charCodeAt(i))) (i++, digits++);
  if (i < e && s.charCodeAt(i) === 46) {
    i++;
    while (i < e && isDigit(s.charCodeAt(i))) (i++, digits++);
  }
  if (digits === 0) return 0;
  if (i < e && (s.charCodeAt(i) === 101 || s.charCodeAt(i) === 69)) {
    i++;
    if (i < e && (s.charCodeAt(i) === 43 || s.charCodeAt(i) === 45)) i++;
    const expStart = i;
    while (i < e && isDigit(s.charCodeAt(i))) i++;
    if (i === expStart) return 0;
  }
  let end = i;
  if (i < e) {
    const c = s.charCodeAt(i);
    // A single trailing type suffix f/F/d/D is allowed, nothing else.
    if (i !== e - 1 || (c !== 102 && c !== 70 && c !== 100 && c !== 68)) return 0;
  }
  conversion.ok = true;
  const v = b === 0 && end === s.length ? Number(s) : Number(s.slice(b, end));
  return v;
}

function namedDouble(s: string, i: number, e: number, negative: boolean): number {
  if (e - i === 3 && s.startsWith("NaN", i)) {
    conversion.ok = true;
    return NaN;
  }
  if (e - i === 8 && s.startsWith("Infinity", i)) {
    conversion.ok = true;
    return negative ? -Infinity : Infinity;
  }
  return 0;
}

/** Boolean.valueOf(String): true exactly when the text equals "true" ignoring case. */
export function javaParseBoolean(s: string): boolean {
  if (s.length !== 4) return false;
  return (
    (s.charCodeAt(0) | 32) === 116 &&
    (s.charCodeAt(1) | 32) === 114 &&
    (s.charCodeAt(2) | 32) === 117 &&
    (s.charCodeAt(3) | 32) === 101
  );
}

// The same conversions applied to a numeric property, whose text is String(n) (see sql92.ts): no parsing needed.

/** Integer.valueOf(String(n)). */
export function numberToInt(n: number): number {
  conversion.ok = Number.isInteger(n) && n >= INT_MIN && n <= INT_MAX;
  return conversion.ok ? (n === 0 ? 0 : n) : 0;
}

/** Long.valueOf(String(n)): String(n) is plain digits below 1e21, so large integers take the text path. */
export function numberToLong(n: number): number | bigint {
  if (Number.isSafeInteger(n)) {
    conversion.ok = true;
    return n === 0 ? 0 : n;
  }
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return javaParseLong(String(n));
  conversion.ok = false;
  return 0;
}

/** Double.valueOf(String(n)) is n itself, except that String(-0) is "0". */
export function numberToDouble(n: number): number {
  conversion.ok = true;
  return n === 0 ? 0 : n;
}

/** Double.compare: -0.0 < 0.0, NaN equal to itself and above everything else. */
export function compareDouble(a: number, b: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  if (a === b) {
    if (a !== 0) return 0;
    const na = Object.is(a, -0);
    const nb = Object.is(b, -0);
    return na === nb ? 0 : na ? -1 : 1;
  }
  const aNaN = a !== a;
  const bNaN = b !== b;
  return aNaN === bNaN ? 0 : aNaN ? 1 : -1;
}

/** Long.compare / Integer.compare on number-or-bigint values (JS compares the two exactly). */
export function compareLong(a: number | bigint, b: number | bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function longToDouble(v: number | bigint): number {
  return typeof v === "bigint" ? Number(v) : v;
}
