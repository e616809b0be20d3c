#!/usr/bin/env node
// Entry point. In a checkout, load the TypeScript sources through tsx so a clean clone needs no build
// step; an installed package (npm pack tarball, git dependency) ships no src/, only the compiled dist/
// that scripts/build.mjs wrote when it was packed.
import { existsSync } from "node:fs";

const source = new URL("../src/cli/main.ts", import.meta.url);
let main;
if (existsSync(source)) {
  const { register } = await import("tsx/esm/api");
  register();
  ({ main } = await import(source.href));
} else {
  ({ main } = await import("../dist/cli/main.js"));
}
await main(process.argv);
