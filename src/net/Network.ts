// Links between client instances and brokers. Each direction of each (client, broker) pair is one TCP
// connection: a message's one-way latency is drawn from the scenario's distribution on the link's own
// stream, and delivery is FIFO per link (a message never overtakes an earlier one on the same
// connection), as TCP guarantees. Faults change links while they last: extra latency or another
// latency distribution, random loss, partitions; a broker that is down receives and sends nothing.
import type { Dist } from "../scenario/distKinds.ts";
import type { RandomStreams, Rng } from "../sim/streams.ts";

/** A fault acting on a set of links, both directions. */
export interface LinkFault {
  clients: readonly number[];
  brokers: readonly number[];
  extraUs?: number;
  latency?: Dist;
  lossProbability?: number;
  partition?: boolean;
}

/** One-way latency between the broker nodes of a group, µs. */
export const INTER_BROKER_US = 200;

export class Network {
  private readonly lastUs: Float64Array;
  private readonly rngs: Rng[] = [];
  private readonly lossRngs: Rng[] = [];
  private readonly brokers: number;
  private readonly links: number;
  private readonly brokerDown: Uint8Array;
  // Per directed link, recomputed whenever the set of active link faults changes.
  private readonly extraUs: Float64Array;
  private readonly lossP: Float64Array;
  private readonly cut: Uint8Array;
  private readonly dist: (Dist | null)[];
  private faulty = false;

  constructor(
    private readonly latency: Dist,
    streams: RandomStreams,
    clientIds: readonly string[],
    brokerNames: readonly string[],
  ) {
    const links = clientIds.length * brokerNames.length;
    this.brokers = brokerNames.length;
    this.links = links;
    this.lastUs = new Float64Array(2 * links);
    this.extraUs = new Float64Array(2 * links);
    this.lossP = new Float64Array(2 * links);
    this.cut = new Uint8Array(2 * links);
    this.dist = new Array(2 * links).fill(null);
    this.brokerDown = new Uint8Array(brokerNames.length);
    for (const dir of ["up", "down"]) {
      clientIds.forEach((cid, c) => {
        brokerNames.forEach((b) => {
          // Labels use the slot number: two instances sharing a client id still get their own streams.
          this.rngs.push(streams.get(`net/${c}:${cid}/${b}/${dir}`));
          this.lossRngs.push(streams.get(`net/${c}:${cid}/${b}/${dir}/loss`));
        });
      });
    }
  }

  /** Delivery time of a message sent now from client to broker, or −1 if it is lost. */
  upAt(nowUs: number, client: number, broker: number): number {
    return this.deliverAt(nowUs, client * this.brokers + broker, broker);
  }

  /** Delivery time of a message sent now from broker to client, or −1 if it is lost. */
  downAt(nowUs: number, client: number, broker: number): number {
    return this.deliverAt(nowUs, this.links + client * this.brokers + broker, broker);
  }

  /**
   * Delivery time between two broker nodes of a group (the HA / SlaveSynchronize connection, on the
   * brokers' own LAN: a fixed INTER_BROKER_US, so records keep their order), −1 if either is down.
   */
  brokerToBrokerAt(nowUs: number, from: number, to: number): number {
    if (this.brokerDown[from] === 1 || this.brokerDown[to] === 1) return -1;
    return nowUs + INTER_BROKER_US;
  }

  setBrokerDown(broker: number, down: boolean): void {
    this.brokerDown[broker] = down ? 1 : 0;
  }

  isBrokerDown(broker: number): boolean {
    return this.brokerDown[broker] === 1;
  }

  /** Installs the link faults now in force (replacing the previous set). */
  setLinkFaults(active: readonly LinkFault[]): void {
    this.extraUs.fill(0);
    this.lossP.fill(0);
    this.cut.fill(0);
    this.dist.fill(null);
    for (const f of active) {
      for (const c of f.clients) {
        for (const b of f.brokers) {
          for (const link of [c * this.brokers + b, this.links + c * this.brokers + b]) {
            if (f.extraUs) this.extraUs[link] = this.extraUs[link]! + f.extraUs;
            if (f.latency) this.dist[link] = f.latency;
            if (f.lossProbability) this.lossP[link] = 1 - (1 - this.lossP[link]!) * (1 - f.lossProbability);
            if (f.partition) this.cut[link] = 1;
          }
        }
      }
    }
    this.faulty = active.length > 0;
  }

  private deliverAt(nowUs: number, link: number, broker: number): number {
    if (this.brokerDown[broker] === 1) return -1;
    let latencyUs: number;
    if (this.faulty) {
      if (this.cut[link] === 1) return -1;
      const p = this.lossP[link]!;
      if (p > 0 && this.lossRngs[link]!() < p) return -1;
      latencyUs = (this.dist[link] ?? this.latency).sample(this.rngs[link]!) + this.extraUs[link]!;
    } else {
      latencyUs = this.latency.sample(this.rngs[link]!);
    }
    const t = Math.max(nowUs + latencyUs, this.lastUs[link]!);
    this.lastUs[link] = t;
    return t;
  }
}
