// The one file of src/report that reads the file system: chart.js's browser bundle, inlined into
// report.html so the report opens from disk with no network. It is read once, when this module is first
// imported, so renderReport() itself stays a pure function of its arguments.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** Resolved through Node's resolver (not a fixed ../node_modules path) so hoisted installs work. */
export const CHART_JS_UMD_PATH = join(dirname(createRequire(import.meta.url).resolve("chart.js")), "chart.umd.js");

/** chart.js's UMD bundle (defines the global `Chart` with every controller, scale and plugin registered). */
export const CHART_JS_UMD_SOURCE: string = readFileSync(CHART_JS_UMD_PATH, "utf8");
