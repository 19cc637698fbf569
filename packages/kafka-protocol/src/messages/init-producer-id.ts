import type { ApiSchema } from "../schema-types";

/** InitProducerId (key 22): apache/kafka 1eb7644 clients/src/main/resources/common/message/InitProducerId{Request,Response}.json. */
export const initProducerId = {
  apiKey: 22,
  name: "InitProducerId",
  validVersions: "0-5",
  flexibleVersions: "2+",
  request: [
    { name: "transactionalId", type: "string", versions: "0+", nullableVersions: "0+" },
    { name: "transactionTimeoutMs", type: "int32", versions: "0+" },
    { name: "producerId", type: "int64", versions: "3+", default: -1n },
    { name: "producerEpoch", type: "int16", versions: "3+", default: -1 },
  ],
  response: [
    { name: "throttleTimeMs", type: "int32", versions: "0+" },
    { name: "errorCode", type: "int16", versions: "0+" },
    { name: "producerId", type: "int64", versions: "0+", default: -1n },
    { name: "producerEpoch", type: "int16", versions: "0+" },
  ],
} as const satisfies ApiSchema;
