// What a run records besides its state, shared by the layers that write and read it: the moments worth
// marking on charts, and what each fault did.

export interface Marker {
  tUs: number;
  kind: "rebalance" | "fault" | "retention";
  label: string;
}

export interface FaultRecord {
  index: number;
  kind: string;
  label: string;
  atMs: number;
  endMs: number | null;
  /** What the fault changed when it hit, in words and figures. */
  effect: string;
}
