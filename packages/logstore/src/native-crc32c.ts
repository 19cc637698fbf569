import { useCrc32c } from "@lastword/record-batch";
import { crc32c } from "@node-rs/crc32";

// Every batch the log appends, recovers or reads unverified is checksummed: @node-rs/crc32's
// hardware CRC-32C is several times the record-batch package's portable one. Installed once, for
// the process, by importing this module (partition-log.ts does).
useCrc32c(crc32c);
