import type { Envelope } from "@lastword/envelope";
import { Badge } from "../ui/badge";

/**
 * A key or value as the API returned it. A tombstone (null value), a missing key and an empty
 * value are three different things in a compacted log, so each gets its own badge.
 */
export function EnvelopeView({ envelope, part }: { envelope: Envelope | null; part: "key" | "value" }) {
  if (envelope === null || envelope.data === null) {
    return part === "value" ? <Badge tone="warning">Tombstone (null)</Badge> : <Badge>No key</Badge>;
  }
  if (envelope.type === "json") {
    return (
      <pre className="max-h-48 max-w-md overflow-auto rounded bg-canvas p-2 font-mono text-xs">
        {JSON.stringify(envelope.data, null, 2)}
      </pre>
    );
  }
  if (envelope.data === "") return <Badge>{part === "value" ? "Empty value" : "Empty key"}</Badge>;
  if (envelope.type === "base64") {
    return (
      <span className="flex items-center gap-2">
        <Badge>base64</Badge>
        <span className="max-w-xs truncate font-mono text-xs">{envelope.data}</span>
      </span>
    );
  }
  return <span className="font-mono text-xs break-all">{envelope.data}</span>;
}
