import { type ErasureDetail, formatTime } from "./erasure-stages";

type Verdict = ErasureDetail["verdicts"][number];

/** A verdict in one line: "user-42: 0 values left in customers, 2 tiers checked (…), last proof …". */
export function verdictLine(v: Verdict): string {
  const key = v.key.isText ? v.key.text : `${v.key.text} (binary key)`;
  const partitions = `${v.partitions} partition${v.partitions === 1 ? "" : "s"}`;
  if (v.valuesLeft === 0) {
    const tiers = `${v.tiers.length} tier${v.tiers.length === 1 ? "" : "s"} checked (${v.tiers.join(", ")})`;
    const last = v.lastProofAt ? `, last proof ${formatTime(v.lastProofAt, "short")}` : "";
    return `${key}: 0 values left in ${v.topic}, ${tiers} in ${partitions}${last}`;
  }
  return `${key}: not yet proven gone from ${v.topic} (${v.provenPartitions} of ${partitions} proven)`;
}

/** What the request proved, first: one line per key and topic; the hashes follow in the timeline. */
export function RequestVerdicts({ verdicts }: { verdicts: ErasureDetail["verdicts"] }) {
  return (
    <ul aria-label="Verdicts" className="flex flex-col gap-1 text-sm">
      {verdicts.map((v) => (
        <li key={`${v.key.base64}-${v.topic}`} title={`key bytes (base64): ${v.key.base64}`}>
          <span className={v.valuesLeft === 0 ? "font-medium" : "text-muted"}>{verdictLine(v)}</span>
        </li>
      ))}
    </ul>
  );
}
