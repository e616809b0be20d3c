import { describe, expect, it } from "vitest";
import { describeValue, InputError } from "./errors.ts";

describe("InputError", () => {
  it("prefixes the message with the field path", () => {
    const error = new InputError("groups.0.config.pullBatchSize", "0 is out of range; use an integer in 1..1024");
    expect(error.message).toBe("groups.0.config.pullBatchSize: 0 is out of range; use an integer in 1..1024");
    expect(error.path).toBe("groups.0.config.pullBatchSize");
    expect(error.reason).toBe("0 is out of range; use an integer in 1..1024");
  });

  it("is an Error named InputError so the CLI can tell it from a bug", () => {
    const error = new InputError("seed", "bad");
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(InputError);
    expect(error.name).toBe("InputError");
  });

  it("omits the prefix when the path is empty", () => {
    expect(new InputError("", "the scenario must be a JSON object").message).toBe("the scenario must be a JSON object");
  });
});

describe("describeValue", () => {
  it("quotes strings and prints objects as JSON", () => {
    expect(describeValue("5 sec")).toBe('"5 sec"');
    expect(describeValue({ a: 1 })).toBe('{"a":1}');
    expect(describeValue(undefined)).toBe("nothing");
    expect(describeValue(-3)).toBe("-3");
  });

  it("cuts a long string to 80 characters with … and says how long it was", () => {
    expect(describeValue("x".repeat(1_000_000))).toBe(`"${"x".repeat(78)}… (1000000 characters)`);
  });

  it("cuts a long list or object and counts its entries, looking only at what it shows", () => {
    const list = Array.from({ length: 100_000 }, (_, i) => i);
    expect(describeValue(list)).toMatch(/^\[0,1,2,.*… \(a list of 100000\)$/);
    const wide = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`key${i}`, "v"]));
    expect(describeValue(wide)).toMatch(/^\{"key0":"v",.*… \(an object of 50 keys\)$/);
  });

  it("shows a 100 000-level nesting as a few levels and {…}, without recursing into it", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    expect(describeValue(deep)).toBe('{"a":{"a":{"a":{…}}}}');
    expect(describeValue([[[[[1]]]]])).toBe("[[[[…]]]]");
  });

  it("never prints undefined or [object Object], and never throws: BigInt, symbols, functions", () => {
    expect(describeValue(10n)).toBe("10n");
    expect(describeValue({ a: undefined, b: Symbol("s"), c: () => 1 })).toBe('{"a":nothing,"b":a symbol,"c":a function}');
    expect(describeValue(null)).toBe("null");
    expect(describeValue(Infinity)).toBe("Infinity");
  });
});
