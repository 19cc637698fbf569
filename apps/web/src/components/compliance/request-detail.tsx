"use client";

import { isDeadlineOpen, isTerminal, stageMarks } from "@lastword/erasure";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useConsoleAccess } from "@/lib/console-access";
import { useTRPC } from "@/lib/trpc";
import { Card } from "../ui/card";
import { ErrorNotice, RefreshFailedNotice, StatusNotice } from "../ui/notice";
import { DeadlineBar } from "./deadline-bar";
import { deadlineSentence, type ErasureDetail, formatTime } from "./erasure-stages";
import { ExportLinks } from "./export-links";
import { ExtendDeadlineForm } from "./extend-deadline-form";
import { MissedGroups } from "./missed-groups";
import { RequestActions } from "./request-actions";
import { RequestTimeline } from "./request-timeline";
import { RequestVerdicts } from "./request-verdicts";
import { StatusBadge } from "./status-badge";
import { SubjectKeys } from "./subject-keys";
import { TopicPreflight } from "./topic-preflight";
import { WaitingFor } from "./waiting-for";

/** Workers advance requests every scheduler tick (5 s by default); refresh a little faster. */
const DETAIL_REFRESH_MS = 3_000;

export function RequestDetail({ id }: { id: string }) {
  const trpc = useTRPC();
  const access = useConsoleAccess();
  const detail = useQuery({
    ...trpc.erasure.get.queryOptions({ id }),
    // A closed or failed request does not move again.
    refetchInterval: (query) =>
      query.state.data && isTerminal(query.state.data.status) ? false : DETAIL_REFRESH_MS,
  });
  if (detail.isPending) return <StatusNotice>Loading erasure request {id}…</StatusNotice>;
  if (detail.isError && detail.data === undefined) {
    return (
      <div className="flex flex-col gap-4">
        <ErrorNotice>
          We could not load erasure request {id}: {detail.error.message}
        </ErrorNotice>
        <BackLink />
      </div>
    );
  }
  const request = detail.data;
  const marks = stageMarks(request);
  const nowMs = Date.now();
  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-col gap-2">
        <BackLink />
        <div className="flex flex-wrap items-center gap-3">
          <h1 className="text-2xl font-semibold tracking-tight">Erasure request</h1>
          <span data-testid="request-status">
            <StatusBadge status={request.status} />
          </span>
        </div>
        <p className="font-mono text-xs text-muted">{request.id}</p>
        {request.statusReason ? <ErrorNotice>{request.statusReason}</ErrorNotice> : null}
        {detail.isError ? <RefreshFailedNotice error={detail.error} /> : null}
      </div>
      <Card
        title="Verdict"
        description="Per key and topic: proven gone or not, where the proofs looked, and when."
      >
        <RequestVerdicts verdicts={request.verdicts} />
      </Card>
      {!isTerminal(request.status) && request.status !== "closed" ? (
        <Card
          title="Waiting for"
          description="What each partition's proof waits for now, and when that is expected to be over."
        >
          <WaitingFor tombstones={request.tombstones} />
        </Card>
      ) : null}
      <Card
        title="Request"
        description="Who asked for what, and by when. Keys and metadata only: record values are never shown."
      >
        <RequestFacts request={request} />
      </Card>
      <Card
        title="Deadline"
        description={deadlineSentence(
          { at: Date.parse(request.deadlineAt), label: formatTime(request.deadlineAt) },
          nowMs,
          isDeadlineOpen(request.status),
        )}
      >
        <DeadlineBar
          receivedAt={request.receivedAt}
          deadlineAt={request.deadlineAt}
          marks={marks}
          nowMs={nowMs}
        />
        <RequestActions request={request} />
        {(isDeadlineOpen(request.status) || (request.status === "failed" && request.tombstones.length > 0)) &&
        access.can("erasure:write") ? (
          <ExtendDeadlineForm id={request.id} />
        ) : null}
      </Card>
      <Card
        title="Timeline"
        description="Each stage with the time the workers proved it, and the scans that prove it."
      >
        <RequestTimeline request={request} marks={marks} />
      </Card>
      {request.laggingGroups.length > 0 ? <LaggingGroups groups={request.laggingGroups} /> : null}
      {request.missedGroups.length > 0 ? <MissedGroups groups={request.missedGroups} /> : null}
      <Card
        title="Topics in scope"
        description="Whether each topic's own configs meet this request's deadline."
      >
        <TopicPreflight
          entries={Object.entries(request.preflight).map(([topic, preflight]) => ({ topic, preflight }))}
        />
      </Card>
      <Card
        title="Export"
        description="The evidence of this request: one row per tombstone, stage and segment scanned."
      >
        <ExportLinks requestId={request.id} />
      </Card>
    </div>
  );
}

function RequestFacts({ request }: { request: ErasureDetail }) {
  const facts: [string, React.ReactNode][] = [
    ["Subject keys", <SubjectKeys key="keys" keys={request.subjectKeys} />],
    [
      "Scope",
      request.scope.allCompacted
        ? `All compacted topics (${request.scope.topics.join(", ")})`
        : request.scope.topics.join(", "),
    ],
    ["Received", formatTime(request.receivedAt)],
    ["Deadline", formatTime(request.deadlineAt)],
    ["Requester", request.requester ?? "Not recorded"],
    ["Notes", request.notes ?? "None"],
  ];
  return (
    <dl className="grid grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-[10rem_1fr]">
      {facts.map(([term, value]) => (
        <div key={term} className="contents">
          <dt className="text-muted">{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
      {request.extensions.map((extension) => (
        <div key={extension.at} className="contents">
          <dt className="text-muted">Extended</dt>
          <dd>
            {formatTime(extension.from)} → {formatTime(extension.to)}: {extension.reason}
          </dd>
        </div>
      ))}
    </dl>
  );
}

function LaggingGroups({ groups }: { groups: ErasureDetail["laggingGroups"] }) {
  return (
    <Card
      title="Consumer groups behind a tombstone"
      description="These groups have not read past the erasure tombstone. If they read after its delete horizon they never see the delete and keep the key."
    >
      <ul className="flex flex-col gap-1 text-sm">
        {groups.map((g) => (
          <li key={`${g.group}-${g.topic}-${g.partition}`}>
            <span className="font-mono">{g.group}</span> on {g.topic} / {g.partition}: committed{" "}
            {g.committedOffset}, tombstone at {g.tombstoneOffset}
            {g.horizonNear ? <strong className="ml-2 text-danger">Horizon near</strong> : null}
          </li>
        ))}
      </ul>
    </Card>
  );
}

function BackLink() {
  return (
    <Link href="/compliance" className="text-sm text-accent hover:underline">
      ← Compliance
    </Link>
  );
}
