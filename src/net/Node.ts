// What a component of the simulated cluster is to the world, and what the world is to it.
//
// A component (a broker, a client instance) is a Node: it reacts to messages, answers, time-outs and its
// own timers, and nothing else. It sees the world only through its NodeContext: the clock, its timers,
// the network (send, request-with-time-out, reply), its random streams and the trace. The network decides
// when and whether a message arrives; the data crosses as a message, never by reaching into the peer
// (FoundationDB's sim2). Unit tests hand a component a recording fake of the context (testContext.ts).
import type { Command } from "../protocol/commands.ts";
import type { Trace } from "../sim/Trace.ts";
import type { Rng } from "../sim/streams.ts";

export interface Node {
  /**
   * A oneway message, or a request (`msg.envelope` DELIVERED), from `msg.from`. A request must be
   * answered (`ctx.reply`) or deferred (`ctx.defer`, to be answered or dropped later) before this
   * returns; the transport throws otherwise.
   */
  receive(msg: Command): void;
  /** The answer to a request this node sent with `cookie`. */
  onResponse(requestCode: number, cookie: number, response: Command): void;
  /** A request this node sent got no answer within its time-out: lost, peer down, or answer lost. */
  onTimeout(requestCode: number, cookie: number): void;
  /** A timer this node set fired. */
  onTimer(code: number, arg: number): void;
}

export interface NodeContext {
  /** This node's address (protocol/address.ts). */
  readonly addr: number;
  /** Virtual time, µs. */
  readonly nowUs: number;
  readonly trace: Trace;
  /** Fires `onTimer(code, arg)` after `delayUs`; returns an id for cancelTimer. */
  timer(delayUs: number, code: number, arg?: number): number;
  timerAt(atUs: number, code: number, arg?: number): number;
  cancelTimer(id: number): void;
  /** A oneway message; the network may delay or lose it. */
  send(to: number, msg: Command): void;
  /**
   * A message whose loss the sender learns at once: false if the network loses it or the peer is down
   * now. Stands for a synchronous call the model does not wait on (cleanExpiredMsg's send-back).
   */
  sendChecked(to: number, msg: Command): boolean;
  /**
   * A request: exactly one of `onResponse(code, cookie, …)` or `onTimeout(code, cookie)` follows — the
   * time-out `timeoutUs` after sending when the request or its answer is lost, the answer would come
   * later than that, the peer is down, or the peer dies holding it.
   */
  request(to: number, msg: Command, timeoutUs: number, cookie: number): void;
  /** Answers a request this node received; the request record is done. */
  reply(request: Command, response: Command): void;
  /** Keeps a request to answer later (long polling). */
  defer(request: Command): void;
  /** A kept request will never be answered (its holder died): its asker's time-out fires. */
  drop(request: Command): void;
  /**
   * Whether a connection to `to` can be made now: false when its process is down (the host answers
   * "connection refused" at once). A lost or partitioned link still connects; its requests time out.
   */
  canConnect(to: number): boolean;
  /** The seeded random stream `label` (one per label for the whole run). */
  rng(label: string): Rng;
}
