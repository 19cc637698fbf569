import type { ErasureState, ScanEvidence, TombstoneFacts } from "../src/index";

export const T0 = Date.UTC(2026, 10, 1);
export const DAY_MS = 86_400_000;
export const at = (ms: number) => new Date(T0 + ms);

/** A request received at T0 with a 30-day deadline, in `status`. */
export function stateIn(status: ErasureState["status"], over: Partial<ErasureState> = {}): ErasureState {
  return {
    status,
    receivedAt: at(0),
    deadlineAt: at(30 * DAY_MS),
    statusReason: null,
    closedAt: null,
    extensions: [],
    ...over,
  };
}

export function evidence(over: Partial<ScanEvidence> = {}): ScanEvidence {
  return {
    scannedAt: at(1_000).toISOString(),
    partitionLogStart: 0,
    partitionLogEnd: 10,
    belowOffset: 7,
    matches: [],
    result: "absent",
    segments: [{ baseOffset: 0, lastOffset: 9, sizeBytes: 512, sha256: "ab".repeat(32) }],
    bytesScanned: 512,
    ...over,
  };
}

export function tombstone(over: Partial<TombstoneFacts> = {}): TombstoneFacts {
  return {
    topicId: "topic-1",
    partition: 0,
    offset: 7,
    subjectKey: "a2V5",
    status: "tombstoned",
    writtenAt: at(100),
    passRequestedAt: null,
    purgedAt: null,
    purgeEvidence: null,
    expiredAt: null,
    expiryEvidence: null,
    missedBy: null,
    waitingFor: null,
    ...over,
  };
}
