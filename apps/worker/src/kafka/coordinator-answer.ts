import { ErrorCode } from "@lastword/kafka-protocol";
import type { KafkaBroker, KafkaCatalog } from "./kafka-catalog";

/** FindCoordinator's answer for one key (a group or a transactional id): its coordinator, or why none. */
export type FindResult =
  | { errorCode: 0; broker: KafkaBroker; message?: undefined }
  | { errorCode: number; message: string; broker?: undefined };

/**
 * The answer for a key whose lease another worker holds or held: that worker's broker while its
 * lease is live and the worker is listed, else COORDINATOR_NOT_AVAILABLE (retriable) saying that
 * `coordinator` is moving.
 */
export async function holderAnswer(
  catalog: KafkaCatalog,
  holder: { ownerWorkerId: string | null; live: boolean },
  coordinator: string,
): Promise<FindResult> {
  const broker = (await catalog.brokers()).find((b) => b.workerId === holder.ownerWorkerId);
  if (!broker || !holder.live) {
    return {
      errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE,
      message: `${coordinator} is moving to another broker; retry shortly.`,
    };
  }
  return { errorCode: 0, broker };
}
