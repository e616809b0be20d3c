// Links between client instances and brokers. Each direction of each (client, broker) pair is one TCP
// connection: a message's one-way latency is drawn from the scenario's distribution on the link's own
// stream, and delivery is FIFO per link (a message never overtakes an earlier one on the same
// connection), as TCP guarantees.
import type { Dist } from "../sim/distributions.ts";
import type { RandomStreams, Rng } from "../sim/streams.ts";

export class Network {
  private readonly lastUs: Float64Array;
  private readonly rngs: Rng[] = [];

  constructor(
    private readonly latency: Dist,
    streams: RandomStreams,
    clientIds: readonly string[],
    brokerNames: readonly string[],
  ) {
    const links = clientIds.length * brokerNames.length;
    this.lastUs = new Float64Array(2 * links);
    for (const dir of ["up", "down"]) {
      for (const cid of clientIds) for (const b of brokerNames) this.rngs.push(streams.get(`net/${cid}/${b}/${dir}`));
    }
    this.brokers = brokerNames.length;
    this.links = links;
  }
  private readonly brokers: number;
  private readonly links: number;

  /** Delivery time of a message sent now from client to broker. */
  upAt(nowUs: number, client: number, broker: number): number {
    return this.deliverAt(nowUs, client * this.brokers + broker);
  }

  /** Delivery time of a message sent now from broker to client. */
  downAt(nowUs: number, client: number, broker: number): number {
    return this.deliverAt(nowUs, this.links + client * this.brokers + broker);
  }

  private deliverAt(nowUs: number, link: number): number {
    const t = Math.max(nowUs + this.latency.sample(this.rngs[link]!), this.lastUs[link]!);
    this.lastUs[link] = t;
    return t;
  }
}
