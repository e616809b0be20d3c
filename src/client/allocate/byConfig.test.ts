import { describe, expect, it } from "vitest";
import { allocateByConfig } from "./byConfig.ts";

function queues(m: number): string[] {
  return Array.from({ length: m }, (_, i) => `topic@brokerName#${i}`);
}

describe("allocateByConfig acceptance case of AllocateMessageQueueByConfigTest (spec §15.1)", () => {
  it("configured with queues 0–3, both of 2 consumers get {0,1,2,3}", () => {
    const mqAll = queues(4);
    const cidAll = ["CID_PREFIX0", "CID_PREFIX1"];
    const strategy = allocateByConfig(mqAll);
    expect(strategy("CID_PREFIX0", mqAll, cidAll)).toEqual(queues(4));
    expect(strategy("CID_PREFIX1", mqAll, cidAll)).toEqual(queues(4));
  });
});

describe("allocateByConfig has no precheck (spec §11.3)", () => {
  it("answers the configured list whatever the inputs: empty currentCID, empty lists, a stranger", () => {
    const strategy = allocateByConfig(queues(2));
    expect(strategy("", [], [])).toEqual(queues(2));
    expect(strategy("stranger", queues(9), ["a"])).toEqual(queues(2));
  });

  it("is not changed by later edits to the configured array or to an earlier answer", () => {
    const configured = queues(3);
    const strategy = allocateByConfig(configured);
    configured.pop();
    strategy("a", [], ["a"]).pop();
    expect(strategy("a", [], ["a"])).toEqual(queues(3));
  });
});
