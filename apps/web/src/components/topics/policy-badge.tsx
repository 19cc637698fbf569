import { explainPolicy } from "@/lib/cleanup-policy";
import { Badge } from "../ui/badge";

export function PolicyBadge({ policy }: { policy: string }) {
  const tone = policy.includes("compact") ? "accent" : "neutral";
  return (
    <span title={explainPolicy(policy)}>
      <Badge tone={tone}>{policy}</Badge>
    </span>
  );
}
