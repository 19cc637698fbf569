/**
 * The position of the last of the first `count` entries of ascending `values` that is ≤ `target`,
 * or -1 when the first already exceeds it: the floor lookup both segment indexes (offset → file
 * position, timestamp → offset) are searched with.
 */
export function floorIndex(values: ArrayLike<number>, count: number, target: number): number {
  let low = 0;
  let high = count - 1;
  let found = -1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    if (values[mid]! <= target) {
      found = mid;
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  return found;
}
