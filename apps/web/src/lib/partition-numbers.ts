/** 0 … count-1: the partition indexes of a topic with `count` partitions. */
export function partitionNumbers(count: number): number[] {
  return Array.from({ length: count }, (_, index) => index);
}
