// Plain data only, no server imports: the e2e specs import this file too, so the console's
// message browser and records.search are proven on the same records.

/** A string envelope, as the REST records routes take and answer keys, values and headers. */
export const str = (data: string) => ({ type: "string", data });

/** A JSON envelope: the value is stored as its JSON text and answered parsed. */
export const json = (data: unknown) => ({ type: "json", data });

/**
 * Three records stamped by hand across three partitions so a merge by time shows: partition 2's
 * record is the oldest, then partition 1's (a text value with a header), then partition 0's. The
 * JSON values share a customer path to filter on.
 */
export const MERGE_BY_TIME_RECORDS = [
  {
    partition: 0,
    key: str("order-1"),
    value: json({ customer: { id: "c-7" }, total: 12 }),
    timestamp: 3_000,
  },
  {
    partition: 2,
    key: str("order-2"),
    value: json({ customer: { id: "c-8" }, total: 40 }),
    timestamp: 1_000,
  },
  {
    partition: 1,
    key: str("refund-1"),
    value: str("Refund for ORDER-1"),
    timestamp: 2_000,
    headers: [{ key: "source", value: str("billing-service") }],
  },
];
