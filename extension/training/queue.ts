// Runs wait here until fewer than `rlx.train.maxParallel` are running. Generic and free of the
// VS Code API: the limit is read on each change, so a changed setting applies to the next start.

export class JobQueue<J> {
  private readonly waiting: J[] = [];
  private readonly active = new Set<J>();

  constructor(
    private readonly limit: () => number,
    /** Starts a job; the queue counts it as running until the promise settles. */
    private readonly start: (job: J) => Promise<unknown>,
  ) {}

  add(job: J): void {
    this.waiting.push(job);
    this.pump();
  }

  /** Takes a job out of the queue before it starts; false if it is not waiting. */
  remove(job: J): boolean {
    const i = this.waiting.indexOf(job);
    if (i < 0) return false;
    this.waiting.splice(i, 1);
    return true;
  }

  get running(): readonly J[] {
    return [...this.active];
  }

  get queued(): readonly J[] {
    return [...this.waiting];
  }

  /** Starts waiting jobs while there is room (also after the limit was raised). */
  pump(): void {
    while (this.waiting.length > 0 && this.active.size < Math.max(1, this.limit())) {
      const job = this.waiting.shift()!;
      this.active.add(job);
      let settled: Promise<unknown>;
      try {
        settled = Promise.resolve(this.start(job));
      } catch (err) {
        settled = Promise.reject(err);
      }
      // A start that fails still frees its place: the job reports its own failure.
      void settled.catch(() => undefined).finally(() => {
        this.active.delete(job);
        this.pump();
      });
    }
  }
}
