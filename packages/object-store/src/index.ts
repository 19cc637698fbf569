export { FsObjectStore } from "./fs-object-store";
export {
  assertObjectKey,
  type ByteRange,
  type KeptVersions,
  OBJECT_KEY_MAX_BYTES,
  type ObjectInfo,
  type ObjectStore,
  ObjectStoreError,
  type ObjectStoreErrorCode,
  type PutOptions,
  STREAM_PART_BYTES,
  STREAM_PARTS_IN_FLIGHT,
} from "./object-store";
export { type ObjectStoreLocation, openObjectStore, parseObjectStoreLocation } from "./open-object-store";
export {
  type BucketVersioning,
  type LifecycleRuleView,
  noncurrentExpiryDays,
  S3ObjectStore,
  type S3StoreConfig,
} from "./s3-object-store";
