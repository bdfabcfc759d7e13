/**
 * Work started now and awaited later, next to other work: a failure is kept
 * (never an unhandled rejection while the caller is busy elsewhere) and
 * thrown by `done`, the first one if several failed.
 */
export class Later {
  private readonly started: Promise<void>[] = [];
  private failure: { error: unknown } | undefined;

  add(work: Promise<unknown>): void {
    this.started.push(
      work.then(
        () => undefined,
        (error: unknown) => {
          this.failure ??= { error };
        },
      ),
    );
  }

  /** Waits for everything added; throws the first failure. */
  async done(): Promise<void> {
    await Promise.all(this.started);
    if (this.failure) throw this.failure.error;
  }
}
