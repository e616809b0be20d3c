// The name server's broker table and a client's copy of it: which node each lookup picks (broker spec
// §4.4 findBrokerAddressInSubscribe, §4.6 offset commits and queries, §4.5 master-only lookups).
import { describe, expect, it } from "vitest";
import { BrokerAddrTable, MAX_BROKER_IDS, NameServer } from "./NameServer.ts";

/** Group 0: master node 0, slaves 2 (id 1) and 3 (id 2); group 1: master node 1 only. */
function table(): { ns: NameServer; t: BrokerAddrTable } {
  const ns = new NameServer(2);
  ns.register(0, 0, 0);
  ns.register(1, 0, 1);
  ns.register(0, 1, 2);
  ns.register(0, 2, 3);
  const t = new BrokerAddrTable(2);
  t.copyFrom(ns);
  return { ns, t };
}

describe("findBrokerAddressInSubscribe (§4.4)", () => {
  it("gives the suggested id when present", () => {
    const { t } = table();
    expect(t.subscribe(0, 0)).toBe(0);
    expect(t.subscribe(0, 1)).toBe(2);
    expect(t.subscribe(0, 2)).toBe(3);
  });

  it("an absent slave id tries id + 1, then the first entry (the lowest id present)", () => {
    const { ns, t } = table();
    ns.unregister(2); // slave id 1 gone
    t.copyFrom(ns);
    expect(t.subscribe(0, 1)).toBe(3); // id 1 absent → id 2
    ns.unregister(3);
    t.copyFrom(ns);
    expect(t.subscribe(0, 1)).toBe(0); // neither → the first entry: the master
  });

  it("an absent master (id 0) goes straight to the first entry: the lowest slave", () => {
    const { ns, t } = table();
    ns.unregister(0);
    t.copyFrom(ns);
    expect(t.subscribe(0, 0)).toBe(2);
    expect(t.master(0)).toBe(-1); // locks and send-backs have no node
    expect(t.admin(0)).toBe(2); // offset commits and queries go to a slave (§4.6)
  });

  it("a group with no node registered: −1 everywhere", () => {
    const { ns, t } = table();
    ns.unregister(1);
    t.copyFrom(ns);
    expect([t.subscribe(1, 0), t.admin(1), t.master(1)]).toEqual([-1, -1, -1]);
  });
});

describe("NameServer", () => {
  it("registering a node under a new id moves it (a role swap), bumping the version each time", () => {
    const { ns } = table();
    const v = ns.version;
    ns.register(0, 0, 2); // the slave (node 2) is now the master
    ns.register(0, 1, 0); // and the old master its slave id 1
    expect(ns.master(0)).toBe(2);
    expect(Array.from(ns.addrs.subarray(0, MAX_BROKER_IDS))).toEqual([2, 0, 3]);
    expect(ns.version).toBeGreaterThan(v);
  });

  it("a client's copy only changes when it copies again (its route poll)", () => {
    const { ns, t } = table();
    ns.unregister(0);
    expect(t.master(0)).toBe(0);
    t.copyFrom(ns);
    expect(t.master(0)).toBe(-1);
  });

  it("without a name server a client's table is fixed: group b is node b, the master", () => {
    const t = new BrokerAddrTable(3);
    expect([t.subscribe(2, 1), t.admin(2), t.master(2), t.nodes()]).toEqual([2, 2, 2, [0, 1, 2]]);
  });
});
