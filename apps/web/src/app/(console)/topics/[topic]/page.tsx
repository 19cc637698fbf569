import type { Metadata } from "next";
import { TopicDetail } from "@/components/topic/topic-detail";

interface TopicPageProps {
  params: Promise<{ topic: string }>;
}

export async function generateMetadata({ params }: TopicPageProps): Promise<Metadata> {
  return { title: decodeURIComponent((await params).topic) };
}

export default async function TopicPage({ params }: TopicPageProps) {
  const topic = decodeURIComponent((await params).topic);
  return <TopicDetail topic={topic} />;
}
