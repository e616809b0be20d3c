import { describe, expect, it } from "vitest";
import { formatNumber } from "./csv.ts";

describe("formatNumber", () => {
  it("prints integers as integers, without exponent even past 1e21", () => {
    expect(formatNumber(0)).toBe("0");
    expect(formatNumber(-0)).toBe("0");
    expect(formatNumber(264903)).toBe("264903");
    expect(formatNumber(-12)).toBe("-12");
    expect(formatNumber(1e21)).toBe("1000000000000000000000");
  });

  it("prints other numbers with at most 3 decimals, trailing zeros dropped, never an exponent", () => {
    expect(formatNumber(4.975)).toBe("4.975");
    expect(formatNumber(0.1)).toBe("0.1");
    expect(formatNumber(1.23456)).toBe("1.235");
    expect(formatNumber(1e-7)).toBe("0");
    expect(formatNumber(0.0005)).toBe("0.001");
    expect(formatNumber(-2.5)).toBe("-2.5");
    expect(formatNumber(123456789.9999)).toBe("123456790");
  });

  it("leaves non-finite values empty", () => {
    expect(formatNumber(Number.NaN)).toBe("");
    expect(formatNumber(Infinity)).toBe("");
  });
});
