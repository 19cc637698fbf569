import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { FsObjectStore } from "./fs-object-store";
import type { ObjectStore } from "./object-store";
import { S3ObjectStore, type S3StoreConfig } from "./s3-object-store";

export type ObjectStoreLocation =
  | { kind: "fs"; root: string }
  | ({ kind: "s3" } & Omit<S3StoreConfig, "credentials">);

/**
 * Reads `LASTWORD_OBJECT_STORE`: a path or `file://` URL for the filesystem store, or
 * `s3://<bucket>[/<prefix>]?region=…&endpoint=…&forcePathStyle=true` for a bucket. Credentials are
 * never part of the location (they come from the environment, as the AWS SDK reads them).
 */
export function parseObjectStoreLocation(value: string): ObjectStoreLocation {
  if (!value.includes("://")) return { kind: "fs", root: resolve(value) };
  const url = new URL(value);
  if (url.protocol === "file:") return { kind: "fs", root: fileURLToPath(url) };
  if (url.protocol !== "s3:") {
    throw new Error(`object store ${value}: expected a path, file:// or s3:// (got ${url.protocol})`);
  }
  if (!url.hostname) throw new Error(`object store ${value}: the s3:// URL names no bucket`);
  const known = new Set(["region", "endpoint", "forcePathStyle"]);
  for (const name of url.searchParams.keys()) {
    if (!known.has(name)) throw new Error(`object store ${value}: unknown parameter ${name}`);
  }
  const prefix = decodeURIComponent(url.pathname).replace(/^\/+|\/+$/g, "");
  return {
    kind: "s3",
    bucket: url.hostname,
    prefix: prefix || undefined,
    region: url.searchParams.get("region") ?? "us-east-1",
    endpoint: url.searchParams.get("endpoint") ?? undefined,
    forcePathStyle: url.searchParams.get("forcePathStyle") === "true",
  };
}

export async function openObjectStore(
  location: ObjectStoreLocation,
  credentials?: S3StoreConfig["credentials"],
): Promise<ObjectStore> {
  if (location.kind === "fs") return new FsObjectStore(location.root);
  const { kind: _kind, ...config } = location;
  return S3ObjectStore.open({ ...config, credentials });
}
