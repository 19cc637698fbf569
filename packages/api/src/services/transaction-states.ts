/**
 * The states of a Kafka transactional id's transaction (Kafka's TransactionState, without the
 * internal ones this coordinator never enters): what the workers' coordinators write on the
 * KafkaTransaction row and what the transactions routes answer. One list for both.
 */
export const TRANSACTION_STATES = [
  "Empty",
  "Ongoing",
  "PrepareCommit",
  "PrepareAbort",
  "CompleteCommit",
  "CompleteAbort",
] as const;

export type TransactionState = (typeof TRANSACTION_STATES)[number];
