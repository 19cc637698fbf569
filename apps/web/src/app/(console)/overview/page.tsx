import { DirtiestTopics } from "@/components/overview/dirtiest-topics";
import { ErasureDeadlines } from "@/components/overview/erasure-deadlines";
import { LaggingGroups } from "@/components/overview/lagging-groups";
import { UsageAgainstQuotas } from "@/components/overview/usage-against-quotas";
import { consoleRoute } from "../console-route";

const route = consoleRoute(
  "Overview",
  "This organization at a glance: its usage against its limits, and what needs attention. Each line links to its page.",
  <>
    <UsageAgainstQuotas />
    <div className="grid gap-6 xl:grid-cols-2">
      <DirtiestTopics />
      <LaggingGroups />
    </div>
    <ErasureDeadlines />
  </>,
);

export const metadata = route.metadata;

export default function OverviewPage() {
  return route.page;
}
