"use client";

import * as Dialog from "@radix-ui/react-dialog";
import { mediumDateTime } from "@/lib/date-time-formats";
import type { BrowsedRecord } from "@/lib/record-export";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { useClipboardCopy } from "../ui/clipboard-copy";
import { CopyBlock } from "../ui/copy-block";
import { envelopeText } from "./record-text";
import { SchemaLabel } from "./schema-decoding";

/** A key or value in full, with its own Copy; a missing one says what it means. */
function Part({ label, record, part }: { label: string; record: BrowsedRecord; part: "key" | "value" }) {
  const envelope = record[part];
  if (envelope === null || envelope.data === null) {
    return (
      <div className="flex flex-col gap-1 text-sm">
        <span className="font-medium">{label}</span>
        {part === "value" ? <Badge tone="warning">Tombstone (null)</Badge> : <Badge>No key</Badge>}
      </div>
    );
  }
  return (
    <div className="flex flex-col gap-1">
      <CopyBlock
        label={`${label}${envelope.type === "base64" ? " (base64)" : ""}`}
        value={envelopeText(envelope, true)}
      />
      <SchemaLabel note={record.schemas?.[part]} />
    </div>
  );
}

/**
 * One record opened from the message browser, in a side panel: where it is, its key, value and
 * headers in full, each with Copy, the whole record as JSON, and "Produce again" (when the member
 * may write), which hands it to the produce form as a draft.
 */
export function RecordDrawer(props: {
  record: BrowsedRecord | null;
  onClose: () => void;
  onProduceAgain?: ((record: BrowsedRecord) => void) | undefined;
}) {
  const { record } = props;
  const { copy } = useClipboardCopy(record ? JSON.stringify(record, null, 2) : "");
  return (
    <Dialog.Root open={record !== null} onOpenChange={(open) => (open ? undefined : props.onClose())}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/40" />
        <Dialog.Content className="fixed inset-y-0 right-0 z-50 flex w-[min(44rem,100vw)] flex-col gap-4 overflow-y-auto border-l border-line bg-surface p-5 text-ink shadow-lg">
          {record ? (
            <>
              <div className="flex items-start justify-between gap-3">
                <Dialog.Title className="text-base font-semibold">
                  Partition {record.partition}, offset <span className="font-mono">{record.offset}</span>
                </Dialog.Title>
                <Dialog.Close asChild>
                  <Button variant="secondary">Close</Button>
                </Dialog.Close>
              </div>
              <Dialog.Description className="text-sm text-muted">
                Written {mediumDateTime.format(new Date(record.timestamp))} ({record.timestamp} ms since
                1970).
              </Dialog.Description>
              <Part label="Key" record={record} part="key" />
              <Part label="Value" record={record} part="value" />
              <section aria-label="Headers" className="flex flex-col gap-2">
                <h3 className="text-sm font-medium">Headers</h3>
                {record.headers.length === 0 ? (
                  <p className="text-sm text-muted">None.</p>
                ) : (
                  record.headers.map((h, index) => (
                    <CopyBlock
                      // biome-ignore lint/suspicious/noArrayIndexKey: a record may repeat a header name; the list never reorders.
                      key={index}
                      label={`Header ${h.key}`}
                      value={h.value === null ? "null" : envelopeText(h.value, true)}
                    />
                  ))
                )}
              </section>
              <div className="flex flex-wrap gap-3">
                <Button variant="secondary" onClick={() => void copy()}>
                  Copy record as JSON
                </Button>
                {props.onProduceAgain ? (
                  <Button onClick={() => props.onProduceAgain?.(record)}>Produce again</Button>
                ) : null}
              </div>
            </>
          ) : null}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
