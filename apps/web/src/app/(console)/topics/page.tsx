import type { Metadata } from "next";
import { CreateTopicForm } from "@/components/topics/create-topic-form";
import { TopicList } from "@/components/topics/topic-list";

export const metadata: Metadata = { title: "Topics" };

export default function TopicsPage() {
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Topics</h1>
        <p className="mt-1 text-sm text-muted">
          Partitioned logs of keyed records. Compacted topics keep the latest value of every key.
        </p>
      </div>
      <TopicList />
      <CreateTopicForm />
    </div>
  );
}
