import { ErrorCode } from "@lastword/kafka-protocol";
import type { TxnRecord, TxnStateRepository } from "./txn-state.repository";

/** Why a transactional batch may not be appended to a partition, or null when it may. */
export interface TxnWriteRefusal {
  errorCode: number;
  message: string;
}

/**
 * A transactional Produce's check on the partition's owner, once per request: the batch's producer
 * must be the transactional id's current one, with its transaction open and this partition added
 * to it (AddPartitionsToTxn first, as every client does). A write that skipped it would open a
 * transaction in the partition that no marker is ever sent to, holding the last stable offset back
 * until the partition's data is gone. An older epoch is a zombie: INVALID_PRODUCER_EPOCH, as the
 * partition's producer state answers it.
 */
export class TxnProduceCheck {
  readonly #row: Promise<TxnRecord | null>;

  constructor(states: TxnStateRepository, tenantId: string, transactionalId: string) {
    this.#row = states.find(tenantId, transactionalId);
    // Read once whether or not a partition gets this far (all may be refused before).
    this.#row.catch(() => undefined);
  }

  async refusal(
    partitionId: string,
    { producerId, producerEpoch }: { producerId: number; producerEpoch: number },
  ): Promise<TxnWriteRefusal | null> {
    let row: TxnRecord | null;
    try {
      row = await this.#row;
    } catch {
      // The database unreachable: a retriable refusal, nothing appended.
      return { errorCode: ErrorCode.REQUEST_TIMED_OUT, message: "the transaction state could not be read" };
    }
    if (!row || row.producerId !== producerId) {
      return {
        errorCode: ErrorCode.INVALID_PRODUCER_ID_MAPPING,
        message: "the batch's producer id is not the transactional id's",
      };
    }
    if (producerEpoch < row.producerEpoch) {
      return {
        errorCode: ErrorCode.INVALID_PRODUCER_EPOCH,
        message: `producer epoch ${producerEpoch} was fenced by epoch ${row.producerEpoch}`,
      };
    }
    if (
      producerEpoch !== row.producerEpoch ||
      row.state !== "Ongoing" ||
      !row.partitions.some((p) => p.partitionId === partitionId)
    ) {
      return {
        errorCode: ErrorCode.INVALID_TXN_STATE,
        message: "the partition is not part of the producer's open transaction (AddPartitionsToTxn first)",
      };
    }
    return null;
  }
}
