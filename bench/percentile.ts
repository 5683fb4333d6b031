/** The nearest-rank percentile (p in 0..100) of `samples`; NaN for none. */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

/** Rounded for a results file: figures this noisy carry no more digits than that. */
export function fixed(value: number, digits = 3): number {
  return Number(value.toFixed(digits));
}
