/**
 * Widths (percent of the bar, summing to 100) for blocks proportional to `sizes`, except that no
 * block is narrower than `minPercent`: a 60-byte active segment next to a 1 GiB one must still be
 * visible and focusable. Blocks raised to the minimum take their width from the others in proportion.
 */
export function segmentWidths(sizes: readonly number[], minPercent: number): number[] {
  const count = sizes.length;
  if (count === 0) return [];
  const total = sizes.reduce((sum, size) => sum + Math.max(0, size), 0);
  if (total === 0 || count * minPercent >= 100) return sizes.map(() => 100 / count);

  const pinned = new Set<number>();
  // Pinning one block shrinks the share of the rest, which may push another under the minimum.
  for (;;) {
    const free = 100 - pinned.size * minPercent;
    const freeBytes = sizes.reduce((sum, size, i) => (pinned.has(i) ? sum : sum + Math.max(0, size)), 0);
    const under = sizes.findIndex(
      (size, i) => !pinned.has(i) && (freeBytes === 0 || (Math.max(0, size) / freeBytes) * free < minPercent),
    );
    if (under === -1) {
      return sizes.map((size, i) => (pinned.has(i) ? minPercent : (Math.max(0, size) / freeBytes) * free));
    }
    pinned.add(under);
  }
}
