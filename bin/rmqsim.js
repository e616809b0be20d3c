#!/usr/bin/env node
// Entry point: load the TypeScript sources through tsx so a clean clone needs no build step.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli/main.ts");
await main(process.argv);
