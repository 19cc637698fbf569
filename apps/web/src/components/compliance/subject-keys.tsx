/** A subject key as the compliance role may see it: its bytes as text, or base64 when they are not text. */
export function SubjectKey({ envelope }: { envelope: { type: string; data: unknown } }) {
  const text = typeof envelope.data === "string" ? envelope.data : JSON.stringify(envelope.data);
  return (
    <span className="font-mono">
      {text}
      {envelope.type === "base64" ? <span className="ml-1 text-xs text-muted">(base64)</span> : null}
    </span>
  );
}

export function SubjectKeys({ keys }: { keys: readonly { type: string; data: unknown }[] }) {
  return (
    <span className="flex flex-wrap gap-x-2">
      {keys.map((key, i) => (
        // Keys of one request are distinct bytes, but two envelopes may print alike.
        // biome-ignore lint/suspicious/noArrayIndexKey: the list never reorders
        <SubjectKey key={i} envelope={key} />
      ))}
    </span>
  );
}
