import { describe, expect, it } from "vitest";
import { BadInputError } from "./errors.ts";
import { lineColumn, locateJsonError, parseJsonText } from "./readJson.ts";

describe("locateJsonError", () => {
  it("finds nothing wrong in valid JSON, BOM aside", () => {
    for (const text of ['{"a": [1, -2.5e3, true, null, "x\\n\\u00e9"]}', "[]", " 0 ", '""']) expect(locateJsonError(text), text).toBeNull();
  });

  it("points at the first error with a sentence", () => {
    const cases: [string, number, RegExp][] = [
      ['{"a": 1,}', 8, /double-quoted property name, found '}' \(a trailing comma\?\)/],
      ['{"a" 1}', 5, /expected ':'/],
      ['{"a": tru}', 6, /unexpected 't'; expected a value/],
      ["[1, 2", 5, /expected ',' or ']' after an array element, found the end of the file/],
      ["[1, 2,]", 6, /a trailing comma before ']'/],
      ['{"a": "x\n"}', 8, /line break or control character inside a string/],
      ['{"a": 01}', 7, /bad number/],
      ["{} x", 3, /unexpected 'x' after the end of the JSON value/],
      ["", 0, /unexpected end of the file/],
      ["{'a': 1}", 1, /double-quoted property name, found '''/],
    ];
    for (const [text, offset, message] of cases) {
      const found = locateJsonError(text);
      expect(found?.offset, text).toBe(offset);
      expect(found?.message, text).toMatch(message);
    }
  });

  it("agrees with JSON.parse on which texts are valid", () => {
    const texts = ["1", "-0", "1.", ".5", "1e5", "1E+5", "-", '"\\x"', '"\\u12"', "[1,]", "{,}", "nul", "true false", '{"a":1}'];
    for (const text of texts) {
      let ok = true;
      try {
        JSON.parse(text);
      } catch {
        ok = false;
      }
      expect(locateJsonError(text) === null, text).toBe(ok);
    }
  });
});

describe("parseJsonText", () => {
  it("reports file:line:column", () => {
    try {
      parseJsonText('{\n  "a": 1\n  "b": 2\n}', "s.json");
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(BadInputError);
      expect((e as Error).message).toBe("s.json:3:3: malformed JSON: expected ',' or '}' after a property value, found '\"'");
    }
  });

  it("skips a byte-order mark", () => {
    expect(parseJsonText('\uFEFF{"a":1}', "s.json")).toEqual({ a: 1 });
  });

  it("lineColumn counts from 1", () => {
    expect(lineColumn("ab\ncd", 0)).toEqual({ line: 1, column: 1 });
    expect(lineColumn("ab\ncd", 4)).toEqual({ line: 2, column: 2 });
  });
});

describe("parseJsonText: JSONC", () => {
  it("reads comments and trailing commas", () => {
    const text = '// a scenario\n{\n  "name": "x", /* inline */\n  "list": [1, 2,], // trailing\n}\n';
    expect(parseJsonText(text, "s.json")).toEqual({ name: "x", list: [1, 2] });
  });

  it("points at the line and column of the file as written, after comments", () => {
    // Line 4 is `  "b" 2`: the missing ':' sits at column 7, whatever the comments above hold.
    const text = '{ /* a comment\n   over two lines */\n  "a": 1, // note\n  "b" 2\n}';
    expect(() => parseJsonText(text, "s.json")).toThrow("s.json:4:7: malformed JSON: expected ':' after the property name, found '2'");
  });

  it("points at a comment that never ends", () => {
    // The comment opens on line 2 after `  "a": 1, ` (10 characters): column 11.
    expect(() => parseJsonText('{\n  "a": 1, /* open\n}', "s.json")).toThrow("s.json:2:11: malformed JSON: a /* comment that is never closed with */");
  });

  it("keeps a byte-order mark out of the columns", () => {
    expect(() => parseJsonText('\uFEFF// c\n{"a" 1}', "s.json")).toThrow(/^s\.json:2:6: /);
  });
});
