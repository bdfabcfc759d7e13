import type { ProgressEvent } from '../pipeline.js';
import { displayText } from '../util/display-text.js';
import { TERMINAL_WIDTH } from '../util/wrap.js';

/**
 * The progress line of `patchgate check` on a terminal: which layer runs,
 * and for long work its counts and an ETA, redrawn in place on stderr. The
 * gate's core only reports events (GateHooks.onProgress); drawing is here.
 * Off a terminal it writes nothing at all, so logs and pipes stay clean.
 */

export interface ProgressClock {
  /** Milliseconds, monotonic. */
  now(): number;
}

export interface ProgressStream {
  write(s: string): unknown;
  isTTY?: boolean;
  /** The terminal's width, when the stream knows it. */
  columns?: number;
}

export interface ProgressOptions {
  clock?: ProgressClock;
  /** Redraws of one task closer together than this are skipped, but never the last one (done = total). */
  minIntervalMs?: number;
}

const CLEAR = '\r\u001b[2K';

/** `45s`, `3m05s`, `1h02m`. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/**
 * The time left at the rate seen since the task's first report: undefined
 * before any unit finished after that first report (no rate yet), 0 when done.
 */
export function estimateRemainingMs(
  start: { at: number; done: number },
  now: number,
  done: number,
  total: number,
): number | undefined {
  if (done >= total) return 0;
  const units = done - start.done;
  const elapsed = now - start.at;
  if (units <= 0 || elapsed <= 0) return undefined;
  return ((total - done) * elapsed) / units;
}

export class ProgressLine {
  private readonly clock: ProgressClock;
  private readonly minIntervalMs: number;
  private readonly starts = new Map<string, { at: number; done: number }>();
  private lastKey = '';
  private lastDraw = Number.NEGATIVE_INFINITY;
  private drawn = false;

  constructor(
    private readonly stream: ProgressStream,
    opts: ProgressOptions = {},
  ) {
    this.clock = opts.clock ?? { now: () => performance.now() };
    this.minIntervalMs = opts.minIntervalMs ?? 100;
  }

  /** Whether anything is drawn: only on a terminal. */
  get enabled(): boolean {
    return this.stream.isTTY === true;
  }

  private get width(): number {
    const cols = this.stream.columns;
    // One column short of the edge: writing the last column makes some terminals wrap.
    return Math.max(20, Math.min(TERMINAL_WIDTH, cols && cols > 0 ? cols : TERMINAL_WIDTH) - 1);
  }

  private draw(raw: string): void {
    // Layer and task names are ours today; the line is still display-safe whatever a layer reports.
    const text = displayText(raw);
    const line = text.length > this.width ? `${text.slice(0, this.width - 1)}…` : text;
    this.stream.write(`${CLEAR}${line}`);
    this.drawn = true;
  }

  layerStart(name: string): void {
    if (!this.enabled) return;
    this.lastKey = '';
    this.draw(`patchgate: running ${name}…`);
  }

  update(e: ProgressEvent): void {
    if (!this.enabled || e.total <= 0) return;
    const now = this.clock.now();
    const key = `${e.layer}\u0000${e.task}`;
    let start = this.starts.get(key);
    if (!start) {
      start = { at: now, done: e.done };
      this.starts.set(key, start);
    }
    const final = e.done >= e.total;
    if (key === this.lastKey && !final && now - this.lastDraw < this.minIntervalMs) return;
    this.lastKey = key;
    this.lastDraw = now;
    this.draw(progressText(e, estimateRemainingMs(start, now, e.done, e.total)));
  }

  /** Removes the line (before a layer's end, or before the report goes to stdout). */
  clear(): void {
    if (!this.drawn) return;
    this.stream.write(CLEAR);
    this.drawn = false;
  }
}

/** `patchgate: hits · properties scored 12/40 (30%) · ETA 45s`. */
export function progressText(e: ProgressEvent, remainingMs: number | undefined): string {
  const done = Math.min(e.done, e.total);
  const pct = Math.floor((done / e.total) * 100);
  const eta =
    done >= e.total ? 'done' : remainingMs === undefined ? 'ETA …' : `ETA ${formatDuration(remainingMs)}`;
  const layer = e.layer === '' ? '' : `${e.layer} · `;
  return `patchgate: ${layer}${e.task} ${done}/${e.total} (${pct}%) · ${eta}`;
}
