// Input files are read with a size cap (issue 15 item 6): /dev/zero or a huge file fails fast with EFBIG,
// which readJsonFile turns into one exit-2 line naming the file, instead of "Invalid string length".
import { mkdtempSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { mkdirLevels, readTextCapped } from "./env.ts";
import { fileError } from "./readJson.ts";
import { BadInputError } from "./errors.ts";

describe("readTextCapped", () => {
  const dir = mkdtempSync(join(tmpdir(), "rmqsim-cap-"));

  it("reads a file up to the cap whole, and refuses one byte more with EFBIG", async () => {
    const file = join(dir, "f.json");
    writeFileSync(file, "x".repeat(3 * 1024 * 1024));
    expect((await readTextCapped(file, 3 * 1024 * 1024)).length).toBe(3 * 1024 * 1024);
    await expect(readTextCapped(file, 3 * 1024 * 1024 - 1)).rejects.toMatchObject({ code: "EFBIG" });
  });

  it.runIf(existsSync("/dev/zero"))("an endless device stops at the cap", async () => {
    await expect(readTextCapped("/dev/zero", 4 * 1024 * 1024)).rejects.toMatchObject({ code: "EFBIG" });
  });

  it("EFBIG becomes a bad-input error naming the file", () => {
    const e = fileError("big.json", Object.assign(new Error("x"), { code: "EFBIG" }));
    expect(e).toBeInstanceOf(BadInputError);
    expect(String((e as Error).message)).toMatch(/larger than 64 MiB/);
  });
});

describe("mkdirLevels (issue 15 item 5)", () => {
  const dir = mkdtempSync(join(tmpdir(), "rmqsim-mk-"));

  it("creates the missing levels of a path", async () => {
    await mkdirLevels(join(dir, "a", "b", "c"));
    expect(existsSync(join(dir, "a", "b", "c"))).toBe(true);
    await mkdirLevels(join(dir, "a", "b", "c")); // already there: nothing to do
  });

  it("a file on the way is ENOTDIR", async () => {
    writeFileSync(join(dir, "f"), "x");
    await expect(mkdirLevels(join(dir, "f", "g"))).rejects.toMatchObject({ code: "ENOTDIR" });
  });

  it.runIf(existsSync("/proc/self"))("a directory procfs will not create fails at once instead of spinning (--out /proc/x)", async () => {
    await expect(mkdirLevels("/proc/rmqsim-x/y")).rejects.toMatchObject({ code: "ENOENT" });
  });
});
