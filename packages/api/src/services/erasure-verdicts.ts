import { GONE_TOMBSTONE_STATUS, type ScanEvidence, type TombstoneStatus } from "@lastword/erasure";

/** A subject key as people read it: its text when it is UTF-8 without control characters, else its bytes in hex. */
export interface KeyName {
  /** What to call the key: the text, or "0x…" for a binary key. */
  text: string;
  /** False for a binary key (`text` is then its hex form). */
  isText: boolean;
  base64: string;
}

const CONTROL = /\p{Cc}/u;

export function keyName(base64: string): KeyName {
  const bytes = Buffer.from(base64, "base64");
  const decoded = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  const isText = Buffer.from(decoded, "utf8").equals(bytes) && !CONTROL.test(decoded) && decoded.length > 0;
  return { text: isText ? decoded : `0x${bytes.toString("hex")}`, isText, base64 };
}

interface VerdictTombstone {
  topic: string | null;
  subjectKeyBase64: string;
  status: TombstoneStatus;
  purgedAt: Date | null;
  purgeEvidence: ScanEvidence | null;
}

/** One key in one topic: is every partition proven clean, on which tiers, and when last. */
export interface Verdict {
  key: KeyName;
  topic: string;
  partitions: number;
  provenPartitions: number;
  /** Old values of the key the proofs found left: 0 once every partition is proven. */
  valuesLeft: number | null;
  /** Where the proofs looked: this disk, object storage, other workers' copies. */
  tiers: string[];
  lastProofAt: string | null;
}

/**
 * The request's verdicts, one per key and topic: what a compliance officer reads first ("user-42:
 * 0 values left in customers, 2 tiers checked"), the hashes below it. A key is proven gone from a
 * topic when every partition it was tombstoned in has its purge proof; the tiers are those every
 * proof covered.
 */
export function erasureVerdicts(tombstones: readonly VerdictTombstone[]): Verdict[] {
  const groups = new Map<string, VerdictTombstone[]>();
  for (const t of tombstones) {
    const id = `${t.subjectKeyBase64}\u0000${t.topic ?? ""}`;
    groups.set(id, [...(groups.get(id) ?? []), t]);
  }
  return [...groups.values()].map((group) => {
    const first = group[0]!;
    const proven = group.filter(
      (t) => t.purgeEvidence?.result === "absent" || t.status === GONE_TOMBSTONE_STATUS,
    );
    const tiers = new Set<string>();
    for (const t of proven) {
      const evidence = t.purgeEvidence;
      if (!evidence) continue;
      tiers.add("disk");
      if (evidence.objects) tiers.add("object storage");
      if (evidence.objects?.caches.some((c) => c.state !== "owner")) tiers.add("other workers' copies");
    }
    const last = Math.max(...proven.map((t) => t.purgedAt?.getTime() ?? 0));
    return {
      key: keyName(first.subjectKeyBase64),
      topic: first.topic ?? "(deleted topic)",
      partitions: group.length,
      provenPartitions: proven.length,
      valuesLeft: proven.length === group.length ? 0 : null,
      tiers: [...tiers],
      lastProofAt: proven.length > 0 && last > 0 ? new Date(last).toISOString() : null,
    };
  });
}
