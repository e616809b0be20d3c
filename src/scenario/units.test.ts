import { describe, expect, it } from "vitest";
import { InputError } from "./errors.ts";
import { formatBytes, formatDurationUs, parseBytes, parseDurationUs } from "./units.ts";

function errorOf(run: () => unknown): InputError {
  try {
    run();
  } catch (error) {
    if (error instanceof InputError) return error;
    throw error;
  }
  throw new Error("expected an InputError");
}

describe("parseDurationUs", () => {
  it("reads every unit into whole microseconds", () => {
    expect(parseDurationUs("200us", "d")).toBe(200);
    expect(parseDurationUs("200µs", "d")).toBe(200);
    expect(parseDurationUs("50ms", "d")).toBe(50_000);
    expect(parseDurationUs("1.5s", "d")).toBe(1_500_000);
    expect(parseDurationUs("10m", "d")).toBe(600_000_000);
    expect(parseDurationUs("2h", "d")).toBe(7_200_000_000);
    expect(parseDurationUs("0ms", "d")).toBe(0);
    expect(parseDurationUs(" 15 s ", "d")).toBe(15_000_000);
  });

  it("treats a JSON number as milliseconds, fractions included", () => {
    expect(parseDurationUs(50, "d")).toBe(50_000);
    expect(parseDurationUs(0.5, "d")).toBe(500);
    expect(parseDurationUs(0, "d")).toBe(0);
  });

  it("rounds to the nearest microsecond", () => {
    expect(parseDurationUs("1.4us", "d")).toBe(1);
    expect(parseDurationUs("1.6us", "d")).toBe(2);
    expect(parseDurationUs(0.0004, "d")).toBe(0);
    expect(parseDurationUs("1.1s", "d")).toBe(1_100_000);
  });

  it("names the path, the bad text and the accepted forms", () => {
    expect(errorOf(() => parseDurationUs("5 sec", "duration")).message).toBe(
      'duration: "5 sec" is not a duration; use a number of ms or a string like "200us", "50ms", "1.5s", "10m", "2h"',
    );
  });

  it("rejects a number inside a string and says so", () => {
    const error = errorOf(() => parseDurationUs("50", "groups.0.pullInterval"));
    expect(error.path).toBe("groups.0.pullInterval");
    expect(error.message).toMatch(/"50" has no unit; a number inside a string is not accepted/);
    expect(() => parseDurationUs("0", "d")).toThrow(InputError);
  });

  it("rejects negative, non-finite, too large and non-numeric values", () => {
    expect(errorOf(() => parseDurationUs(-1, "d")).message).toMatch(/negative/);
    expect(errorOf(() => parseDurationUs("-5ms", "d")).message).toMatch(/negative/);
    expect(errorOf(() => parseDurationUs(Number.NaN, "d")).message).toMatch(/finite/);
    expect(errorOf(() => parseDurationUs(Infinity, "d")).message).toMatch(/finite/);
    expect(errorOf(() => parseDurationUs(2 ** 52, "d")).message).toMatch(/too large/);
    expect(errorOf(() => parseDurationUs(true, "d")).message).toMatch(/true is not a duration/);
    expect(errorOf(() => parseDurationUs(null, "d")).message).toMatch(/null is not a duration/);
    expect(errorOf(() => parseDurationUs("1e3ms", "d")).message).toMatch(/is not a duration/);
    expect(errorOf(() => parseDurationUs("ms", "d")).message).toMatch(/is not a duration/);
  });
});

describe("parseBytes", () => {
  it("reads every binary unit", () => {
    expect(parseBytes("512B", "b")).toBe(512);
    expect(parseBytes("1KiB", "b")).toBe(1024);
    expect(parseBytes("100MiB", "b")).toBe(100 * 1024 ** 2);
    expect(parseBytes("6GiB", "b")).toBe(6 * 1024 ** 3);
    expect(parseBytes("1TiB", "b")).toBe(1024 ** 4);
  });

  it("treats a JSON number as bytes", () => {
    expect(parseBytes(4096, "b")).toBe(4096);
    expect(parseBytes(0, "b")).toBe(0);
  });

  it("rounds fractional quantities to whole bytes", () => {
    expect(parseBytes("1.5KiB", "b")).toBe(1536);
    expect(parseBytes("0.001KiB", "b")).toBe(1);
  });

  it("refuses decimal units and explains that only 1024-based units are accepted", () => {
    const error = errorOf(() => parseBytes("10MB", "topics.0.bodySize"));
    expect(error.path).toBe("topics.0.bodySize");
    expect(error.message).toMatch(/"10MB" is not a size \(only the 1024-based units B, KiB, MiB, GiB, TiB are accepted\)/);
    expect(errorOf(() => parseBytes("1kib", "b")).message).toMatch(/1024-based/);
  });

  it("rejects fractional numbers, negatives, bare numeric strings and other types", () => {
    expect(errorOf(() => parseBytes(1.5, "b")).message).toMatch(/not a whole number of bytes/);
    expect(errorOf(() => parseBytes(-1, "b")).message).toMatch(/negative/);
    expect(errorOf(() => parseBytes("-1KiB", "b")).message).toMatch(/negative/);
    expect(errorOf(() => parseBytes("100", "b")).message).toMatch(/no unit/);
    expect(errorOf(() => parseBytes([], "b")).message).toMatch(/\[\] is not a size/);
    expect(errorOf(() => parseBytes("2000000TiB", "b")).message).toMatch(/too large/);
  });
});

describe("formatDurationUs", () => {
  it("picks the largest unit that keeps the number at least 1", () => {
    expect(formatDurationUs(1_500_000)).toBe("1.5s");
    expect(formatDurationUs(250_000)).toBe("250ms");
    expect(formatDurationUs(800)).toBe("800us");
    expect(formatDurationUs(600_000_000)).toBe("10m");
    expect(formatDurationUs(7_200_000_000)).toBe("2h");
    expect(formatDurationUs(0)).toBe("0us");
    expect(formatDurationUs(-2_000)).toBe("-2ms");
  });

  it("produces text that parses back to the same value when three decimals suffice", () => {
    for (const us of [1, 999, 1_000, 1_234_000, 59_000_000, 90_000_000, 5_400_000_000]) {
      expect(parseDurationUs(formatDurationUs(us), "d")).toBe(us);
    }
  });
});

describe("formatBytes", () => {
  it("prints bytes plainly and larger sizes with one decimal", () => {
    expect(formatBytes(12)).toBe("12 B");
    expect(formatBytes(1024)).toBe("1.0 KiB");
    expect(formatBytes(101 * 1024 ** 2)).toBe("101.0 MiB");
    expect(formatBytes(1.5 * 1024 ** 3)).toBe("1.5 GiB");
    expect(formatBytes(2 * 1024 ** 4)).toBe("2.0 TiB");
  });
});
