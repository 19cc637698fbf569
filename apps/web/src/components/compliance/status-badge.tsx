import { ERASURE_STATUS_LABELS, type ErasureStatus, isDeadlineOpen, needsAttention } from "@lastword/erasure";
import { Badge } from "../ui/badge";

export function statusLabel(status: ErasureStatus): string {
  return ERASURE_STATUS_LABELS[status];
}

/** Proven stages in the accent colour, the two that need a person in the warning colour. */
export function StatusBadge({ status }: { status: ErasureStatus }) {
  const tone = needsAttention(status) ? "warning" : isDeadlineOpen(status) ? "neutral" : "accent";
  return <Badge tone={tone}>{ERASURE_STATUS_LABELS[status]}</Badge>;
}
