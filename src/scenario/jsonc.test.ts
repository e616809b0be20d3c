import { describe, expect, it } from "vitest";
import { JsoncError, stripJsonc } from "./jsonc.ts";

describe("stripJsonc", () => {
  it("leaves plain JSON as it is", () => {
    for (const text of ['{"a": [1, 2], "b": {"c": null}}', "[]", '"x"', ""]) expect(stripJsonc(text)).toBe(text);
  });

  it("blanks // and /* */ comments, keeping every line break, so the text keeps its length and lines", () => {
    const text = '{\n  // one\n  "a": 1, /* two\n  lines */ "b": 2 // end\n}';
    const out = stripJsonc(text);
    expect(out.length).toBe(text.length);
    expect(out.split("\n").length).toBe(text.split("\n").length);
    expect(JSON.parse(out)).toEqual({ a: 1, b: 2 });
    // Line 3 keeps "a": 1, at the same columns; the comment after it is spaces.
    expect(out.split("\n")[2]).toBe('  "a": 1,       ');
  });

  it("blanks a trailing comma before } or ], also with a comment between", () => {
    expect(stripJsonc('{"a": [1, 2,], "b": 3,}')).toBe('{"a": [1, 2 ], "b": 3 }');
    expect(JSON.parse(stripJsonc('[1, // last\n]'))).toEqual([1]);
    expect(JSON.parse(stripJsonc('{"a": {"b": "c",},}'))).toEqual({ a: { b: "c" } });
  });

  it("leaves commas that follow no value for the parser to refuse", () => {
    for (const text of ["[,]", "{,}", "[1,,]", '{"a":,}']) expect(() => JSON.parse(stripJsonc(text)), text).toThrow(SyntaxError);
  });

  it("does not look inside strings: // and /* and a comma before ] stay", () => {
    const text = '{"url": "https://x.org/a//b", "s": "/* no */", "q": "say \\"hi\\", ]", "t": [1,]}';
    expect(JSON.parse(stripJsonc(text))).toEqual({ url: "https://x.org/a//b", s: "/* no */", q: 'say "hi", ]', t: [1] });
  });

  it("refuses a block comment that never ends, at the offset where it opens", () => {
    try {
      stripJsonc('{"a": 1 /* open\n}');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(JsoncError);
      expect((e as JsoncError).offset).toBe(8);
      expect((e as Error).message).toMatch(/never closed/);
    }
  });
});
