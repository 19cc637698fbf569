import type { Metadata } from "next";
import { TransactionList } from "@/components/transactions/transaction-list";
import { ConsolePage } from "@/components/ui/console-page";

export const metadata: Metadata = { title: "Transactions" };

export default function TransactionsPage() {
  return (
    <ConsolePage
      title="Transactions"
      intro={
        <>
          Every Kafka transactional id of this organization: its state, the producer holding it, its timeout,
          and the partitions and start of the transaction it has open. An open transaction holds back its
          partitions&apos; last stable offset, so read_committed consumers wait for it; a hung one can be
          aborted here, which also fences its producer.
        </>
      }
    >
      <TransactionList />
    </ConsolePage>
  );
}
