/**
 * Splits a total into `count` installments that add back up to it exactly.
 * The first `total % count` installments carry one extra cent, so no two
 * differ by more than a cent.
 *
 * History: the first version rounded `total / count` for every installment,
 * which invents or loses cents whenever the total does not divide evenly
 * (1 cent in 2 installments billed 2 cents). The seed tape keeps the seed and
 * the counterexample that found it, so the bug cannot come back unnoticed.
 */
export function splitInstallments(totalCents: number, count: number): number[] {
  if (!Number.isInteger(totalCents) || totalCents < 0)
    throw new RangeError('totalCents must be a whole number ≥ 0');
  if (!Number.isInteger(count) || count < 1) throw new RangeError('count must be a whole number ≥ 1');
  const base = Math.floor(totalCents / count);
  const extra = totalCents % count;
  return Array.from({ length: count }, (_, i) => base + (i < extra ? 1 : 0));
}
