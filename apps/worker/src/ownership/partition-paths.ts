import { join } from "node:path";

// Ids come from our own database (cuids), but a path built from them must never climb out of the data root.
const SAFE_SEGMENT = /^[A-Za-z0-9_-]{1,128}$/;

/** <dataDir>/<organizationId>/<topicId>/<partitionIndex>, the layout every worker shares. */
export function partitionDir(
  dataDir: string,
  organizationId: string,
  topicId: string,
  index: number,
): string {
  if (!SAFE_SEGMENT.test(organizationId) || !SAFE_SEGMENT.test(topicId)) {
    throw new Error(`refusing unsafe partition path segment (${organizationId}/${topicId})`);
  }
  if (!Number.isInteger(index) || index < 0) throw new Error(`invalid partition index ${index}`);
  return join(dataDir, organizationId, topicId, String(index));
}

export function isSafePathSegment(name: string): boolean {
  return SAFE_SEGMENT.test(name);
}
