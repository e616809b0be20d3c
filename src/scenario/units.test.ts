import { describe, expect, it } from "vitest";
import { InputError } from "./errors.ts";
import { formatBytes, formatDurationUs, parseBytes, parseDurationUs, parseMiBText } from "./units.ts";

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
      'duration: "5 sec" is not a duration; use a number of ms or a string like "200us", "50ms", "1.5s", "10m", "2h", or units combined largest first: "1h30m", "3m30s", "1m0.5s"',
    );
  });

  it("adds up compound durations, units largest first", () => {
    // 1h30m = 3 600 s + 1 800 s = 5 400 s; 5h15m = 18 000 s + 900 s = 18 900 s; 3m30s = 210 s.
    expect(parseDurationUs("1h30m", "d")).toBe(5_400_000_000);
    expect(parseDurationUs("5h15m", "d")).toBe(18_900_000_000);
    expect(parseDurationUs("3m30s", "d")).toBe(210_000_000);
    // 60 s + 0.5 s; 1 h + 2 min + 3 s + 4 ms + 5 µs = 3 723 004 005 µs.
    expect(parseDurationUs("1m0.5s", "d")).toBe(60_500_000);
    expect(parseDurationUs("1h2m3s4ms5us", "d")).toBe(3_723_004_005);
    expect(parseDurationUs("2s250µs", "d")).toBe(2_000_250);
    // Blanks between the parts and around the units are allowed, as for one part.
    expect(parseDurationUs(" 1h 30 m ", "d")).toBe(5_400_000_000);
    // A fraction in the last part: 1 h + 0.5 min = 3 600 s + 30 s = 3 630 s.
    expect(parseDurationUs("1h.5m", "d")).toBe(3_630_000_000);
  });

  it("refuses compound durations out of order, with a unit twice, a fraction before the end or a part without unit", () => {
    const cases: [string, RegExp][] = [
      ["30s1m", /"30s1m" is not a duration: the units of a compound duration go largest first \(h, m, s, ms, us\), each at most once/],
      ["1m1m", /each at most once/],
      ["1us1µs", /each at most once/],
      ["1.5h30m", /only the last part may have a fraction \("1h30m", "1m0\.5s"\)/],
      ["1h30", /the part "30" has no unit/],
      ["1h30min", /"min" is not a duration unit \(us, µs, ms, s, m, h\)/],
      ["1h-30m", /"1h-30m" is not a duration; /],
      ["1h1m1s1ms1us1us", /is not a duration/],
    ];
    for (const [text, message] of cases) {
      const error = errorOf(() => parseDurationUs(text, "topics.0.retention"));
      expect(error.path, text).toBe("topics.0.retention");
      expect(error.message, text).toMatch(message);
      // Every rejection ends with the accepted forms.
      expect(error.message, text).toMatch(/use a number of ms or a string like .* "1h30m", "3m30s", "1m0\.5s"$/);
    }
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

describe("parseMiBText", () => {
  it("converts a size string to whole MiB", () => {
    // 1 GiB = 1 024 MiB; 2 048 KiB = 2 MiB; 1 048 576 B = 1 MiB.
    expect(parseMiBText("100MiB", "m")).toBe(100);
    expect(parseMiBText("1GiB", "m")).toBe(1024);
    expect(parseMiBText("2048KiB", "m")).toBe(2);
    expect(parseMiBText("1048576B", "m")).toBe(1);
    expect(parseMiBText("0.5GiB", "m")).toBe(512);
  });

  it("refuses a size that is not a whole number of MiB and names the nearest whole ones", () => {
    // 512 KiB = 0.5 MiB; 1 536 KiB = 1.5 MiB.
    expect(errorOf(() => parseMiBText("512KiB", "m")).message).toBe('m: "512KiB" is 0.5 MiB, but this setting is a whole number of MiB (an int in RocketMQ): use "1MiB"');
    expect(errorOf(() => parseMiBText("1536KiB", "m")).message).toMatch(/is 1\.5 MiB, .* use "1MiB" or "2MiB"$/);
  });

  it("names the field, its unit (MiB) and the accepted suffixes for an unknown unit", () => {
    const error = errorOf(() => parseMiBText("100MB", "groups.0.config.pullThresholdSizeForQueue"));
    expect(error.path).toBe("groups.0.config.pullThresholdSizeForQueue");
    expect(error.reason).toBe(
      '"100MB" is not a size (only the 1024-based units B, KiB, MiB, GiB, TiB are accepted); this setting is in MiB: use a number of MiB (e.g. 100) or a string with a unit B, KiB, MiB, GiB or TiB ("100MiB", "1GiB", "512KiB")',
    );
    expect(errorOf(() => parseMiBText("100 megs", "m")).reason).toMatch(/is not a size; this setting is in MiB/);
    expect(errorOf(() => parseMiBText("-1MiB", "m")).reason).toMatch(/negative/);
    expect(errorOf(() => parseMiBText("100", "m")).reason).toMatch(/no unit/);
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
