import { createApiKeyProcedure } from "../procedures/api-keys/create-api-key";
import { listApiKeysProcedure } from "../procedures/api-keys/list-api-keys";
import { revokeApiKeyProcedure } from "../procedures/api-keys/revoke-api-key";
import { produceRecordsProcedure } from "../procedures/records/produce-records";
import { readRecordsProcedure } from "../procedures/records/read-records";
import { createTopicProcedure } from "../procedures/topics/create-topic";
import { deleteTopicProcedure } from "../procedures/topics/delete-topic";
import { getTopicProcedure } from "../procedures/topics/get-topic";
import { listTopicsProcedure } from "../procedures/topics/list-topics";
import { router } from "./trpc";

export const appRouter = router({
  topics: router({
    create: createTopicProcedure,
    list: listTopicsProcedure,
    get: getTopicProcedure,
    delete: deleteTopicProcedure,
  }),
  apiKeys: router({
    create: createApiKeyProcedure,
    list: listApiKeysProcedure,
    revoke: revokeApiKeyProcedure,
  }),
  records: router({
    produce: produceRecordsProcedure,
    read: readRecordsProcedure,
  }),
});

export type AppRouter = typeof appRouter;
