// Node addresses. A broker's address is its index; a client's is its instance slot and incarnation
// (epoch): a restarted JVM is a new node with a new address, so what was addressed to the old one —
// answers, notifications — is recognised as stale.

/** Client slots per epoch; also the first client address. Broker indexes stay below it. */
export const CLIENT_SLOT_SPAN = 1 << 20;

export function brokerAddr(broker: number): number {
  return broker;
}

export function clientAddr(slot: number, epoch: number): number {
  return (epoch + 1) * CLIENT_SLOT_SPAN + slot;
}

export function isClientAddr(addr: number): boolean {
  return addr >= CLIENT_SLOT_SPAN;
}

/** The instance slot of a client address. */
export function clientSlot(addr: number): number {
  return addr % CLIENT_SLOT_SPAN;
}
