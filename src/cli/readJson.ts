// Reading JSON files for the CLI: a missing file, a directory or malformed JSON each become one
// BadInputError naming the file (and, for syntax errors, the line and column). Files may be JSONC:
// comments and trailing commas are accepted (scenario files are hand-written and worth annotating).
//
// V8's JSON.parse messages give a character offset only for some errors ("Unexpected token 'x',
// ... is not valid JSON" has none), so syntax errors are located by a small scanner of our own,
// which also keeps the wording stable across Node versions.
import { JsoncError, stripJsonc } from "../scenario/jsonc.ts";
import { BadInputError } from "./errors.ts";
import type { CliFs } from "./env.ts";

/** Reads and parses the file at absolute `path`; errors name it as `shown` (as the user wrote it). */
export async function readJsonFile(fs: CliFs, path: string, shown: string): Promise<unknown> {
  let text: string;
  try {
    text = await fs.readText(path);
  } catch (error) {
    throw fileError(shown, error);
  }
  return parseJsonText(text, shown);
}

/** Turns an fs error into a sentence: missing file, directory, permission. */
export function fileError(file: string, error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "ENOENT") return new BadInputError(file, "no such file");
  if (code === "EISDIR") return new BadInputError(file, "is a directory, not a scenario file");
  if (code === "EACCES" || code === "EPERM") return new BadInputError(file, "permission denied");
  if (code === "ENOTDIR") return new BadInputError(file, "a part of the path is not a directory");
  if (code === "EFBIG") return new BadInputError(file, "is larger than 64 MiB: not a scenario (or result) file rmqsim reads");
  return error;
}

/**
 * Parses JSON or JSONC (comments and trailing commas, src/scenario/jsonc.ts). Comments are blanked in
 * place, so the line and column of a syntax error are those of the file as written.
 */
export function parseJsonText(text: string, file: string): unknown {
  // A UTF-8 byte-order mark is legal at the start of a file but not in JSON; editors add it.
  const raw = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let body: string;
  try {
    body = stripJsonc(raw);
  } catch (error) {
    if (!(error instanceof JsoncError)) throw error;
    const { line, column } = lineColumn(raw, error.offset);
    throw new BadInputError(`${file}:${line}:${column}`, `malformed JSON: ${error.message}`);
  }
  try {
    return JSON.parse(body);
  } catch {
    const found = locateJsonError(body) ?? { offset: 0, message: "is not valid JSON" };
    const { line, column } = lineColumn(body, found.offset);
    throw new BadInputError(`${file}:${line}:${column}`, `malformed JSON: ${found.message}`);
  }
}

/** 1-based line and column of a character offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/** The first syntax error of `text` as JSON (RFC 8259), or null if it is well-formed. */
export function locateJsonError(text: string): { offset: number; message: string } | null {
  let i = 0;
  const fail = (message: string): never => {
    throw new JsonSyntax(i, message);
  };
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  const at = () => (i < text.length ? `'${text[i]}'` : "the end of the file");
  const literal = (word: string) => {
    if (text.startsWith(word, i)) i += word.length;
    else fail(`unexpected ${at()}; expected a value`);
  };
  const string = () => {
    i++; // opening quote
    for (;;) {
      if (i >= text.length) fail("unterminated string");
      const c = text.charCodeAt(i);
      if (c === 34) return void i++;
      if (c < 32) fail("a line break or control character inside a string (use \\n)");
      if (c === 92) {
        i++;
        const e = text[i];
        if (e === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail("bad \\u escape; expected four hex digits");
          i += 5;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i++;
        else fail(`bad escape '\\${e ?? ""}'`);
      } else i++;
    }
  };
  const number = () => {
    const m = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 400));
    if (!m) fail(`bad number starting ${at()}`);
    i += m![0].length;
    if (i < text.length && /[0-9.eE+-]/.test(text[i]!)) fail("bad number (leading zeros, a trailing dot or a stray sign)");
  };
  const value = (depth: number): void => {
    if (depth > 1000) fail("nested more than 1000 levels deep");
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      if (text[i] === "}") return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail(`expected a double-quoted property name, found ${at()}${text[i] === "}" ? " (a trailing comma?)" : ""}`);
        string();
        ws();
        if (text[i] !== ":") fail(`expected ':' after the property name, found ${at()}`);
        i++;
        value(depth + 1);
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") return void i++;
        fail(`expected ',' or '}' after a property value, found ${at()}`);
      }
    }
    if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") return void i++;
      for (;;) {
        value(depth + 1);
        ws();
        if (text[i] === ",") {
          i++;
          ws();
          if (text[i] === "]") fail("a trailing comma before ']'");
          continue;
        }
        if (text[i] === "]") return void i++;
        fail(`expected ',' or ']' after an array element, found ${at()}`);
      }
    }
    if (c === '"') return string();
    if (c === "t") return literal("true");
    if (c === "f") return literal("false");
    if (c === "n") return literal("null");
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return number();
    fail(i >= text.length ? "unexpected end of the file; expected a value" : `unexpected ${at()}; expected a value`);
  };
  try {
    value(0);
    ws();
    if (i < text.length) fail(`unexpected ${at()} after the end of the JSON value`);
    return null;
  } catch (error) {
    if (error instanceof JsonSyntax) return { offset: error.offset, message: error.message };
    throw error;
  }
}

class JsonSyntax extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}
