import fc from "fast-check";

/** One weighted choice of `fc.oneof`. */
export interface WeightedStep<T> {
  weight: number;
  arbitrary: fc.Arbitrary<T>;
}

/**
 * The steps of a model test that carry nothing but their kind (roll, crash, reopen, clean …), each
 * with its weight among the test's other steps, in the order given: spread them into `fc.oneof`
 * where they stand among the others, so that a seed draws the same runs.
 */
export function bareSteps<K extends string>(weights: Record<K, number>): WeightedStep<{ kind: K }>[] {
  return (Object.entries(weights) as [K, number][]).map(([kind, weight]) => ({
    weight,
    arbitrary: fc.constant({ kind }),
  }));
}
