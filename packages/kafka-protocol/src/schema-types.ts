/**
 * The declarative schema format (schemas/*.json, typed by scripts/generate-schemas.ts): a transcription of Kafka's JSON message definitions
 * (apache/kafka clients/src/main/resources/common/message/*.json) with lowerCamel field names.
 * Version strings keep Kafka's notation: "3+", "0-7", "5", "none".
 */
export type PrimitiveType =
  | "bool"
  | "int8"
  | "int16"
  | "int32"
  | "int64"
  | "uint16"
  | "uint32"
  | "float64"
  | "string"
  | "bytes"
  | "records"
  | "uuid";

export type DefaultValue = boolean | number | bigint | string | null;

export interface FieldSchema {
  readonly name: string;
  /** A primitive, `[]primitive`, `[]StructName` or `StructName`; structs carry `fields`. */
  readonly type: string;
  readonly versions: string;
  readonly nullableVersions?: string;
  readonly taggedVersions?: string;
  readonly tag?: number;
  /** Only "none": the field keeps classic encoding in flexible versions (RequestHeader ClientId). */
  readonly flexibleVersions?: "none";
  readonly default?: DefaultValue;
  readonly fields?: readonly FieldSchema[];
}

/** One API: its request and response share the key, the valid and the flexible versions. */
export interface ApiSchema {
  readonly apiKey: number;
  readonly name: string;
  readonly validVersions: string;
  readonly flexibleVersions: string;
  readonly request: readonly FieldSchema[];
  readonly response: readonly FieldSchema[];
}

type ScalarValue<T> = T extends "bool"
  ? boolean
  : T extends "int64"
    ? bigint
    : T extends "string" | "uuid"
      ? string
      : T extends "bytes" | "records"
        ? Buffer
        : number;

type NullIfNullable<F> = F extends { readonly nullableVersions: string } ? null : never;

type DecodedValue<F extends FieldSchema> = F extends {
  readonly fields: infer Fs extends readonly FieldSchema[];
}
  ? F["type"] extends `[]${string}`
    ? MessageBody<Fs>[]
    : MessageBody<Fs>
  : F["type"] extends `[]${infer E}`
    ? ScalarValue<E>[]
    : ScalarValue<F["type"]>;

type InputValue<F extends FieldSchema> = F extends {
  readonly fields: infer Fs extends readonly FieldSchema[];
}
  ? F["type"] extends `[]${string}`
    ? readonly MessageInput<Fs>[]
    : MessageInput<Fs>
  : F["type"] extends `[]${infer E}`
    ? readonly ScalarValue<E>[]
    : F["type"] extends "int64"
      ? bigint | number
      : ScalarValue<F["type"]>;

/**
 * A decoded message: every field of the schema is present, at its default when the version
 * lacks it, so handlers read one shape whatever version the client spoke.
 */
export type MessageBody<Fs extends readonly FieldSchema[]> = {
  [F in Fs[number] as F["name"]]: DecodedValue<F> | NullIfNullable<F>;
};

/** What an encoder takes: any field may be left out and then encodes as its default. */
export type MessageInput<Fs extends readonly FieldSchema[]> = {
  readonly [F in Fs[number] as F["name"]]?: InputValue<F> | NullIfNullable<F>;
};
