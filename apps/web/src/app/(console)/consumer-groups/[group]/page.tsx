import type { Metadata } from "next";
import { GroupPage } from "@/components/groups/group-page";

interface GroupPageProps {
  params: Promise<{ group: string }>;
}

export async function generateMetadata({ params }: GroupPageProps): Promise<Metadata> {
  return { title: `${decodeURIComponent((await params).group)} · Consumer groups` };
}

export default async function ConsumerGroupPage({ params }: GroupPageProps) {
  return <GroupPage group={decodeURIComponent((await params).group)} />;
}
