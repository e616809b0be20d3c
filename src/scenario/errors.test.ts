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
    expect(describeValue(undefined)).toBe("undefined");
    expect(describeValue(-3)).toBe("-3");
  });

  it("cuts long values to 80 characters", () => {
    expect(describeValue("x".repeat(200)).length).toBe(80);
  });
});
