import { describe, expect, it } from "vitest";
import { numericPaths } from "../scenario/expect.ts";
import { SUMMARY_FIGURES } from "../scenario/vocabulary.ts";
import { emptySummary } from "./summary.ts";

describe("summary figures", () => {
  it("SUMMARY_FIGURES, the names expectations may compare, are exactly the summary's numeric figures, in its order", () => {
    expect(numericPaths(emptySummary())).toEqual(SUMMARY_FIGURES);
  });
});
