import { describe, expect, it } from "vitest";
import { byteArrayBytes, HEAP_BYTES_PER_MESSAGE, HEAP_FOOTPRINT, heapEstimateBytes, heapEstimateMiB, stringBytes } from "./heapEstimate.ts";

describe("heapEstimate: RocketMQ's objects around a cached message", () => {
  it("sizes arrays and compact strings as JOL does on a 64-bit JVM with compressed oops", () => {
    expect(byteArrayBytes(0)).toBe(16); // header only
    expect(byteArrayBytes(8)).toBe(24); // 16 + 8
    expect(byteArrayBytes(9)).toBe(32); // 25 aligned up to 8
    expect(stringBytes(4)).toBe(48); // "true": 24 String + byte[4] 24
    expect(stringBytes(32)).toBe(72); // UNIQ_KEY value: 24 + 48
  });

  it("a cached message carries 2 360 bytes besides its body, the sum of the documented figures", () => {
    // By hand: MessageClientExt 112 + body header 16 + topic 56 + msgId 72 + two hosts 192 + HashMap 48
    // + Node[128] 528 + 9 nodes 288 + 7 key Strings 344 + 9 value Strings 480 + TreeMap entry and Long 64
    // + consume task 160 = 2 360.
    expect(HEAP_FOOTPRINT.map((f) => f.bytes)).toEqual([112, 16, 56, 72, 192, 48, 528, 288, 344, 480, 64, 160]);
    expect(HEAP_BYTES_PER_MESSAGE).toBe(2360);
    for (const f of HEAP_FOOTPRINT) expect(f.derivation).not.toBe("");
  });

  it("estimates N cached messages × 2 360 B + their bodies", () => {
    expect(heapEstimateBytes(0, 0)).toBe(0);
    expect(heapEstimateBytes(1000, 2_048_000)).toBe(1000 * 2360 + 2_048_000);
    // 10 000 messages of 2 KiB: 23 600 000 + 20 480 000 = 44 080 000 B = 42.038… MiB.
    expect(heapEstimateMiB(10_000, 10_000 * 2048)).toBe(42.038);
  });
});
