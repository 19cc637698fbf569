import { Badge } from "../ui/badge";
import type { ErasureStatus } from "./erasure-stages";

const LABELS: Record<ErasureStatus, string> = {
  received: "Received",
  tombstoned: "Tombstoned",
  purged: "Purged",
  "tombstone-expired": "Tombstone expired",
  closed: "Closed",
  "at-risk": "At risk",
  failed: "Failed",
};

export function statusLabel(status: ErasureStatus): string {
  return LABELS[status];
}

/** Proven stages in the accent colour, the two that need a person in the warning colour. */
export function StatusBadge({ status }: { status: ErasureStatus }) {
  const tone =
    status === "at-risk" || status === "failed"
      ? "warning"
      : status === "received" || status === "tombstoned"
        ? "neutral"
        : "accent";
  return <Badge tone={tone}>{LABELS[status]}</Badge>;
}
