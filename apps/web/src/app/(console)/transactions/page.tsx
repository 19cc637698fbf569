import { TransactionList } from "@/components/transactions/transaction-list";
import { consoleRoute } from "../console-route";

const route = consoleRoute(
  "Transactions",
  <>
    Every Kafka transactional id of this organization: its state, the producer holding it, its timeout, and
    the partitions and start of the transaction it has open. An open transaction holds back its
    partitions&apos; last stable offset, so read_committed consumers wait for it; a hung one can be aborted
    here, which also fences its producer.
  </>,
  [TransactionList],
);

export const metadata = route.metadata;

export default function TransactionsPage() {
  return route.page;
}
