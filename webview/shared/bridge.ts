// The page's only link to VS Code: acquireVsCodeApi() (postMessage, getState/setState) and the
// window 'message' events the host posts. Host messages are queued and handed to the page once
// per animation frame, so a burst of updates (a fast run, or the whole history of a long one)
// costs one render, not one per message.
import type { HostMessage, PageKind, PageMessage } from '../protocol.js';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

/** How long one frame's batch took to apply, kept for the bench (newest last). */
export const frameWork: number[] = [];
const FRAME_WORK_KEPT = 2000;

export class Bridge<State extends object> {
  // VS Code allows one call per page load.
  private readonly api: VsCodeApi = acquireVsCodeApi();
  private queue: HostMessage[] = [];
  private frameRequested = false;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  private pendingState: State | undefined;

  constructor(
    private readonly page: PageKind,
    private readonly onBatch: (messages: HostMessage[]) => void,
  ) {
    window.addEventListener('message', (event: MessageEvent) => {
      if (!isHostMessage(event.data)) return;
      this.queue.push(event.data);
      this.requestFrame();
    });
    // Saved state must not be lost when the panel closes within the save delay.
    window.addEventListener('pagehide', () => this.flushState());
  }

  /** Tells the host the page listens; it answers with the runs and their history. */
  ready(): void {
    this.post({ type: 'ready', page: this.page });
  }

  post(message: PageMessage): void {
    this.api.postMessage(message);
  }

  /** The state saved before the panel was hidden or the window reloaded, over `defaults`. */
  loadState(defaults: State): State {
    const saved = this.api.getState();
    return saved && typeof saved === 'object' ? { ...defaults, ...(saved as Partial<State>) } : { ...defaults };
  }

  /** Saves soon (state changes come in bursts while dragging a slider or zooming). */
  saveState(state: State): void {
    this.pendingState = state;
    if (this.saveTimer === undefined) this.saveTimer = setTimeout(() => this.flushState(), 100);
  }

  flushState(): void {
    if (this.saveTimer !== undefined) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    if (this.pendingState !== undefined) this.api.setState(this.pendingState);
    this.pendingState = undefined;
  }

  private requestFrame(): void {
    if (this.frameRequested) return;
    this.frameRequested = true;
    requestAnimationFrame(() => {
      this.frameRequested = false;
      const batch = this.queue;
      this.queue = [];
      const t0 = performance.now();
      try {
        this.onBatch(batch);
      } catch (err) {
        // A bug in one update must not silence the page: say so, and keep listening.
        console.error(err);
        this.post({ type: 'error', message: `${this.page} page: ${(err as Error).message}` });
      }
      frameWork.push(performance.now() - t0);
      if (frameWork.length > FRAME_WORK_KEPT) frameWork.splice(0, frameWork.length - FRAME_WORK_KEPT);
    });
  }
}

const HOST_TYPES = new Set<string>(['runs', 'events', 'columns', 'status', 'rollouts', 'episode', 'frame']);

function isHostMessage(data: unknown): data is HostMessage {
  return typeof data === 'object' && data !== null && HOST_TYPES.has((data as { type?: unknown }).type as string);
}

/**
 * A read-only view of a page's state for tests and the bench: `window.__rlxTest.snapshot()`.
 * Pages never read it themselves.
 */
export function exposeTestHook(snapshot: () => unknown): void {
  Object.defineProperty(window, '__rlxTest', {
    value: Object.freeze({ snapshot, frameWork: () => frameWork.slice() }),
    configurable: false,
    writable: false,
  });
}
