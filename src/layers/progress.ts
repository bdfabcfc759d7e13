/** What a layer reports of long work: `done` of `total` units of `task` (the pipeline adds the layer's name). */
export type ProgressReport = (task: string, done: number, total: number) => void;

/**
 * Counts the units of one task that several producers work on at once (the
 * hits scorer's revisions, say): each adds what it will do once it knows, and
 * each finished unit is reported with the running totals. Reporting is
 * best-effort: whatever the report does, the work goes on.
 */
export class ProgressTally {
  private done = 0;
  private total = 0;

  constructor(
    private readonly report: ProgressReport | undefined,
    private readonly task: string,
  ) {}

  /** `n` more units to do. */
  expect(n: number): void {
    if (n <= 0) return;
    this.total += n;
    this.emit();
  }

  /** `n` units done. */
  finish(n = 1): void {
    if (n <= 0) return;
    this.done = Math.min(this.total, this.done + n);
    this.emit();
  }

  private emit(): void {
    if (!this.report || this.total === 0) return;
    try {
      this.report(this.task, this.done, this.total);
    } catch {
      // A progress line is never worth a failed layer.
    }
  }
}
