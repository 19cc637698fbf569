/** A key or value as the API encodes it (@lastword/api envelopes); a null value is a tombstone. */
export type Envelope =
  | { type: "string"; data: string | null }
  | { type: "json"; data: unknown }
  | { type: "base64"; data: string | null };
