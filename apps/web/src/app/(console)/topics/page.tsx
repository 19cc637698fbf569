import { CreateTopicForm } from "@/components/topics/create-topic-form";
import { TopicList } from "@/components/topics/topic-list";
import { consoleRoute } from "../console-route";

const route = consoleRoute(
  "Topics",
  <>Partitioned logs of keyed records. Compacted topics keep the latest value of every key.</>,
  [TopicList, CreateTopicForm],
);

export const metadata = route.metadata;

export default function TopicsPage() {
  return route.page;
}
