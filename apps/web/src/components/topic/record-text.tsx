import type { Envelope } from "@lastword/envelope";
import { Badge } from "../ui/badge";

/** Characters of a value shown before "Show all": enough to recognise it, short enough to scan a list. */
export const SHOWN_CHARS = 400;

/** An envelope as text: JSON compact or indented (the pretty-print toggle), strings and base64 as they are. */
export function envelopeText(envelope: Envelope, pretty: boolean): string {
  if (envelope.type === "json") return JSON.stringify(envelope.data, null, pretty ? 2 : undefined);
  const text = envelope.data ?? "";
  // The API answers JSON values as text (format "auto"), so the toggle indents text that is a JSON
  // object or array here, as drawn, without reading again.
  if (pretty && envelope.type === "string" && /^\s*[[{]/.test(text)) {
    try {
      return JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      return text;
    }
  }
  return text;
}

/**
 * A key or value in the message browser: a tombstone, a missing key and an empty value each get
 * their own badge (they mean different things in a compacted log); a long one is cut at
 * SHOWN_CHARS with a button that shows the rest.
 */
export function RecordText(props: {
  envelope: Envelope | null;
  part: "key" | "value";
  pretty: boolean;
  expanded: boolean;
  onExpand: () => void;
}) {
  const { envelope, part } = props;
  if (envelope === null || envelope.data === null) {
    return part === "value" ? <Badge tone="warning">Tombstone (null)</Badge> : <Badge>No key</Badge>;
  }
  const text = envelopeText(envelope, props.pretty);
  if (text === "") return <Badge>{part === "value" ? "Empty value" : "Empty key"}</Badge>;
  const cut = !props.expanded && text.length > SHOWN_CHARS;
  // A key is an identifier: kept on its lines as written (never wrapped, so never broken inside a
  // word; the table scrolls sideways for a long one). A value wraps anywhere.
  // On a phone, where rows stack into cards, a key wraps too: a card has no sideways scroll.
  const wrap =
    part === "key"
      ? "whitespace-pre max-sm:whitespace-pre-wrap max-sm:[overflow-wrap:anywhere]"
      : "whitespace-pre-wrap [overflow-wrap:anywhere]";
  return (
    <span className="flex flex-col items-start gap-1">
      {envelope.type === "base64" ? <Badge>base64</Badge> : null}
      <span className={`font-mono text-xs ${wrap}`}>{cut ? `${text.slice(0, SHOWN_CHARS)}…` : text}</span>
      {cut ? (
        <button type="button" onClick={props.onExpand} className="text-xs font-medium text-accent underline">
          Show all {text.length.toLocaleString("en")} characters
        </button>
      ) : null}
    </span>
  );
}
