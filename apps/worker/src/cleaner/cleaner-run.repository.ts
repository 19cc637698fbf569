import type { CleanerRunStatus, PrismaClient } from "@lastword/db";
import { type CleanResult, type Clock, systemClock } from "@lastword/logstore";

/** One CleanerRun row per pass: opened when the pass starts, closed with its numbers or its error. */
export class CleanerRunRepository {
  readonly #prisma: PrismaClient;
  readonly #workerId: string;
  /** The worker's clock: a run's times compare with the erasure proofs' (erasure-progress.ts). */
  readonly #clock: Clock;

  constructor(prisma: PrismaClient, workerId: string, clock: Clock = systemClock) {
    this.#prisma = prisma;
    this.#workerId = workerId;
    this.#clock = clock;
  }

  async start(partitionId: string): Promise<string> {
    const run = await this.#prisma.cleanerRun.create({
      data: {
        partitionId,
        workerId: this.#workerId,
        status: "running",
        startedAt: new Date(this.#clock.now()),
      },
      select: { id: true },
    });
    return run.id;
  }

  /** `dirtyRatioAfter`: the partition's ratio once the pass swapped its segments in. */
  async finish(
    runId: string,
    result: CleanResult,
    dirtyRatioAfter: number | null,
    size: { before: number; after: number } | null = null,
  ): Promise<Extract<CleanerRunStatus, "completed" | "skipped" | "aborted">> {
    const status = result.abortedReason ? "aborted" : result.cleaned ? "completed" : "skipped";
    await this.#prisma.cleanerRun.update({
      where: { id: runId },
      data: {
        status,
        finishedAt: new Date(this.#clock.now()),
        bytesRead: BigInt(result.bytesRead),
        bytesWritten: BigInt(result.bytesWritten),
        recordsRemoved: result.recordsRemoved,
        tombstonesRemoved: result.tombstonesRemoved,
        mapUtilisation: result.mapUtilization,
        durationMs: Math.round(result.durationMs),
        error: result.abortedReason,
        trigger: result.trigger,
        dirtyRatioBefore: finiteOrNull(result.dirtyRatio),
        dirtyRatioAfter: dirtyRatioAfter === null ? null : finiteOrNull(dirtyRatioAfter),
        bytesBefore: size === null ? null : BigInt(size.before),
        bytesAfter: size === null ? null : BigInt(size.after),
      },
    });
    return status;
  }

  async fail(runId: string, error: string, durationMs: number): Promise<void> {
    await this.#prisma.cleanerRun.update({
      where: { id: runId },
      data: {
        status: "failed",
        finishedAt: new Date(this.#clock.now()),
        durationMs: Math.round(durationMs),
        error,
      },
    });
  }
}

function finiteOrNull(value: number): number | null {
  return Number.isFinite(value) ? value : null;
}
