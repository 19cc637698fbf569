import type { ScanKind } from "@lastword/erasure";
import { formatBytes } from "../../lib/partition-stats";
import { DataTable } from "../ui/data-table";
import { type ErasureDetail, formatTime } from "./erasure-stages";

type Tombstone = ErasureDetail["tombstones"][number];

/**
 * What a verification scan proved, per tombstone: the segments it read (base offset, size,
 * SHA-256 of the file as it was on disk), the bytes scanned and the result, each row naming the
 * subject key (its text, or its bytes in hex). Keys, offsets and hashes only — never a record's value.
 */
export function EvidenceTable({ stage, tombstones }: { stage: ScanKind; tombstones: Tombstone[] }) {
  const rows = tombstones.flatMap((t) => {
    const evidence = stage === "purge" ? t.purgeEvidence : t.expiryEvidence;
    return evidence ? [{ t, evidence }] : [];
  });
  const name = stage === "purge" ? "Purge evidence" : "Tombstone expiry evidence";
  if (rows.length === 0) return <p className="text-sm text-muted">No scan has proved this stage yet.</p>;
  return (
    <DataTable
      label={name}
      titles={[
        "Topic / partition",
        "Key",
        "Tombstone offset",
        "Scanned",
        "Result",
        "Bytes scanned",
        "Segments",
      ]}
      size="xs"
    >
      {rows.map(({ t, evidence }) => (
        <tr
          key={`${t.topic}-${t.partition}-${t.offset}`}
          className="border-b border-line align-top last:border-0"
        >
          <th scope="row" className="py-2 pr-4 font-mono font-normal whitespace-nowrap">
            {t.topic ?? "(deleted topic)"} / {t.partition}
          </th>
          <td className="py-2 pr-4 font-mono break-all" title={`bytes (base64): ${t.subjectKeyBase64}`}>
            {t.subjectKeyName.text}
            {t.subjectKeyName.isText ? null : <span className="block text-muted">binary key (hex)</span>}
          </td>
          <td className="py-2 pr-4 tabular-nums">{t.offset}</td>
          <td className="py-2 pr-4 whitespace-nowrap">{formatTime(evidence.scannedAt, "short")}</td>
          <td className="py-2 pr-4">
            {evidence.result === "absent" ? "No earlier record of the key" : "Key still present"}
          </td>
          <td className="py-2 pr-4 tabular-nums">{formatBytes(evidence.bytesScanned)}</td>
          <td className="py-2">
            <ul
              aria-label={`Segments scanned in ${t.topic} partition ${t.partition}`}
              className="flex flex-col gap-1"
            >
              {evidence.segments.map((segment) => (
                <li key={segment.baseOffset} className="font-mono">
                  base {segment.baseOffset} · {formatBytes(segment.sizeBytes)} ·{" "}
                  <span title={segment.sha256} className="break-all">
                    sha256 {segment.sha256}
                  </span>
                </li>
              ))}
            </ul>
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
