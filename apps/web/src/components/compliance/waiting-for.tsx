import { type ErasureDetail, formatTime } from "./erasure-stages";

/**
 * What each partition's proof waits for now and when that is expected to be over, as the worker
 * that guards it last wrote it ("customers / 2: 3 replaced commit objects … — by 23:05:12").
 */
export function WaitingFor({ tombstones }: { tombstones: ErasureDetail["tombstones"] }) {
  const waiting = tombstones.flatMap((t) => (t.waitingFor ? [{ t, waitingFor: t.waitingFor }] : []));
  if (waiting.length === 0) {
    return (
      <p className="text-sm text-muted">Nothing reported yet: a worker looks at each tombstone every tick.</p>
    );
  }
  return (
    <ul aria-label="Waiting for" className="flex flex-col gap-1 text-sm">
      {waiting.map(({ t, waitingFor }) => (
        <li key={`${t.topic}-${t.partition}-${t.offset}`}>
          <span className="font-mono">
            {t.topic ?? "(deleted topic)"} / {t.partition}
          </span>{" "}
          ({t.subjectKeyName.text}): {waitingFor.reason} — by{" "}
          <time dateTime={waitingFor.until}>{formatTime(waitingFor.until)}</time>
        </li>
      ))}
    </ul>
  );
}
