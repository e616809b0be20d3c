// JSONC (JSON with comments, as VS Code's settings and tsconfig.json): `//` line comments, `/* */`
// block comments and trailing commas before `}` or `]`. They are blanked out rather than removed —
// each such character becomes a space, line breaks stay — so the result has the same length and the
// same line and column for every character: a JSON syntax error found in it points at the right place
// in the file the user wrote. A small scanner that skips strings (with their escapes), so "//" or a
// comma inside a string is left alone.

/** A comment that never ends; `offset` is where it begins. */
export class JsoncError extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
    this.name = "JsoncError";
  }
}

const QUOTE = 34, SLASH = 47, STAR = 42, BACKSLASH = 92, LF = 10, CR = 13, COMMA = 44;

/** `text` with comments and trailing commas replaced by spaces (line breaks kept). Throws JsoncError. */
export function stripJsonc(text: string): string {
  // Fast path: no slash and no comma followed (after blanks) by a closing bracket — plain JSON.
  if (!text.includes("/") && !/,\s*[}\]]/.test(text)) return text;
  const blank: number[] = []; // [start, end) ranges to blank, in order
  let i = 0;
  const n = text.length;
  let prev = -1; // the last significant character outside comments: decides whether a comma trails a value
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i);
      prev = QUOTE;
      continue;
    }
    if (c === SLASH && text.charCodeAt(i + 1) === SLASH) {
      const start = i;
      while (i < n && text.charCodeAt(i) !== LF && text.charCodeAt(i) !== CR) i++;
      blank.push(start, i);
      continue;
    }
    if (c === SLASH && text.charCodeAt(i + 1) === STAR) {
      const end = text.indexOf("*/", i + 2);
      if (end < 0) throw new JsoncError(i, "a /* comment that is never closed with */");
      blank.push(i, end + 2);
      i = end + 2;
      continue;
    }
    if (c === COMMA && isValueEnd(prev) && closesNext(text, i + 1)) {
      blank.push(i, i + 1);
      i++;
      continue; // prev stays the value's end: "[1,]" then reads "[1 ]"
    }
    if (!isBlank(c)) prev = c;
    i++;
  }
  if (blank.length === 0) return text;
  const out: string[] = [];
  let from = 0;
  for (let k = 0; k < blank.length; k += 2) {
    out.push(text.slice(from, blank[k]), text.slice(blank[k], blank[k + 1]).replace(/[^\r\n]/g, " "));
    from = blank[k + 1]!;
  }
  out.push(text.slice(from));
  return out.join("");
}

/** Index just past the string starting at `i` (its closing quote), or the end of the text if unterminated. */
function stringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === BACKSLASH) j++;
    else if (c === QUOTE) return j + 1;
    // A line break ends the scan: JSON strings cannot hold one, and the parser reports it there.
    else if (c === LF || c === CR) return j;
  }
  return text.length;
}

/** Whether the next significant character after `i` (skipping blanks and comments) is } or ]. */
function closesNext(text: string, i: number): boolean {
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (isBlank(c)) i++;
    else if (c === SLASH && text.charCodeAt(i + 1) === SLASH) {
      while (i < text.length && text.charCodeAt(i) !== LF && text.charCodeAt(i) !== CR) i++;
    } else if (c === SLASH && text.charCodeAt(i + 1) === STAR) {
      const end = text.indexOf("*/", i + 2);
      if (end < 0) return false; // the main loop reports the open comment
      i = end + 2;
    } else return c === 125 || c === 93;
  }
  return false;
}

/** A comma after one of these does not follow a value (`[,]`, `{,}`, `[1,,]`, `"a":,`): left for the parser to refuse. */
function isValueEnd(c: number): boolean {
  return c !== -1 && c !== 91 && c !== 123 && c !== COMMA && c !== 58;
}

function isBlank(c: number): boolean {
  return c === 32 || c === 9 || c === LF || c === CR;
}
