// Compares two V8 heap snapshots (from bench/dayMemory.ts --snapshots) by object kind: count and self
// size per (node type, name), the kinds that grew most first. What grows between two hours of the same
// steady workload is what grows with run length.
//   node --import tsx bench/heapDiff.ts /tmp/day-h4.heapsnapshot /tmp/day-h7.heapsnapshot [rows]
// Not a test.
import { readFileSync } from "node:fs";

interface Kind {
  count: number;
  bytes: number;
}

function kinds(file: string): Map<string, Kind> {
  const snap = JSON.parse(readFileSync(file, "utf8"));
  const meta = snap.snapshot.meta;
  const fields: string[] = meta.node_fields;
  const types: string[] = meta.node_types[0];
  const stride = fields.length;
  const iType = fields.indexOf("type");
  const iName = fields.indexOf("name");
  const iSize = fields.indexOf("self_size");
  const nodes: number[] = snap.nodes;
  const strings: string[] = snap.strings;
  const out = new Map<string, Kind>();
  for (let i = 0; i < nodes.length; i += stride) {
    const type = types[nodes[i + iType]!]!;
    // Strings and numbers are named by their value: group them by type only.
    const name = type === "string" || type === "concatenated string" || type === "sliced string" || type === "number" ? "" : strings[nodes[i + iName]!]!.slice(0, 60);
    const key = `${type}:${name}`;
    const k = out.get(key) ?? { count: 0, bytes: 0 };
    k.count++;
    k.bytes += nodes[i + iSize]!;
    out.set(key, k);
  }
  return out;
}

const [a, b, rowsArg] = process.argv.slice(2);
if (!a || !b) throw new Error("usage: heapDiff.ts <before.heapsnapshot> <after.heapsnapshot> [rows]");
const before = kinds(a);
const after = kinds(b);
const rows: { key: string; dCount: number; dBytes: number; count: number; bytes: number }[] = [];
for (const [key, k] of after) {
  const o = before.get(key) ?? { count: 0, bytes: 0 };
  rows.push({ key, dCount: k.count - o.count, dBytes: k.bytes - o.bytes, count: k.count, bytes: k.bytes });
}
for (const [key, o] of before) if (!after.has(key)) rows.push({ key, dCount: -o.count, dBytes: -o.bytes, count: 0, bytes: 0 });
rows.sort((x, y) => Math.abs(y.dBytes) - Math.abs(x.dBytes));
let total = 0;
for (const r of rows) total += r.dBytes;
console.log(`total self size change: ${(total / 1024).toFixed(0)} KiB`);
console.log("Δ KiB      Δ count   KiB after  count after  kind");
for (const r of rows.slice(0, Number(rowsArg ?? 30))) {
  console.log(`${(r.dBytes / 1024).toFixed(0).padStart(8)} ${String(r.dCount).padStart(10)} ${(r.bytes / 1024).toFixed(0).padStart(10)} ${String(r.count).padStart(12)}  ${r.key}`);
}
