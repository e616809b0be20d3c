import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Scenario tests simulate minutes of virtual time; keep a generous per-test budget.
    testTimeout: 60_000,
    pool: "forks",
  },
});
