// Faults named by the client ids the Ownership table and the consumers chart use (issue 17): a scenario
// targets "G1/1", the report shows "consumerCrash G1/1 (10.0.0.2@1001)". Consumer slots number the
// instances of every group in order, each group taking instancesMax slots (the model's convention).
import type { Model } from "../scenario/types.ts";

/** Ids listed in a label before the rest are counted ("+3 more"). */
const IDS_LISTED_MAX = 4;

/** Each fault label that targets consumer instances → the label with their client ids. */
export function faultLabelsWithClients(model: Model): Map<string, string> {
  const ids = model.groups.flatMap((g) => g.clientIds.slice(0, g.instancesMax));
  const out = new Map<string, string>();
  for (const f of model.faults) {
    const slots = "consumers" in f ? f.consumers : "clients" in f ? f.clients : f.kind === "duplicateClientId" ? [f.consumer] : [];
    const named = slots.map((s) => ids[s]).filter((id): id is string => id !== undefined);
    if (named.length === 0) continue;
    const list = named.length === ids.length && named.length > 1
      ? `all ${named.length} instances`
      : named.length > IDS_LISTED_MAX ? `${named.slice(0, IDS_LISTED_MAX).join(", ")} +${named.length - IDS_LISTED_MAX} more` : named.join(", ");
    out.set(f.label, `${f.label} (${list})`);
  }
  return out;
}

/** A marker's or fault row's label with its client ids ("end …" markers too). */
export function withClients(label: string, labels: ReadonlyMap<string, string>): string {
  const end = label.startsWith("end ") ? "end " : "";
  return end + (labels.get(label.slice(end.length)) ?? label.slice(end.length));
}
