import type { Metadata } from "next";
import { CreateTopicForm } from "@/components/topics/create-topic-form";
import { TopicList } from "@/components/topics/topic-list";
import { ConsolePage } from "@/components/ui/console-page";

export const metadata: Metadata = { title: "Topics" };

export default function TopicsPage() {
  return (
    <ConsolePage
      title="Topics"
      intro={<>Partitioned logs of keyed records. Compacted topics keep the latest value of every key.</>}
    >
      <TopicList />
      <CreateTopicForm />
    </ConsolePage>
  );
}
