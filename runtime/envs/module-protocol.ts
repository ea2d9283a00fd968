// What the trainer (module-host.ts) and the worker thread running a user env module
// (module-worker.ts) share: the layout of the one SharedArrayBuffer through which each
// create/reset/step is asked for and answered. Requests go through shared memory rather than
// messages so that the trainer can wait for an answer synchronously (the env API is
// synchronous) and give up after a timeout.

import type { TextModuleSpec } from '../../dsl/schema/env-module.js';

/**
 * What the worker is asked to do. A text env's calls (textReset, textStep, expert) carry their
 * arguments and results as JSON in the text block: the agent's turn in, the checked result out.
 */
export const OP = { create: 1, reset: 2, step: 3, textReset: 4, textStep: 5, expert: 6 } as const;

/** How a request ended. */
export const STATUS = { ok: 0, failed: 1, exited: 2 } as const;

/** Bits of the flags slot. */
export const FLAG = { terminated: 1, truncated: 2, success: 4, seeded: 8 } as const;

/**
 * Int32 slots of the control block.
 *
 * A step request steps `count` copies, one record each in `numbers` (records of `recordWidth`
 * numbers): in, the copy's index and its action; out, its observation, reward and flags
 * (recordLayout()). A reset or create uses record 0: the observation out.
 */
export const SLOT = {
  /** The number of the latest request (the trainer increments it). */
  request: 0,
  /** The number of the latest request answered (the worker sets it to the request's number). */
  answer: 16,
  op: 32,
  /** Which env copy. */
  copy: 33,
  status: 34,
  flags: 35,
  /** Byte length of the text block's contents (params in, error message out). */
  textLength: 36,
  /** How many copies a step request steps. */
  count: 37,
  /** The text block's size in bytes (set once, by the side that makes the channel). */
  textBytes: 38,
} as const;

/** Where things sit in a step record: in, [copy, action...]; out, [obs..., reward, flags, info...] (the declared info values). */
export function recordLayout(obsDim: number, actionDim: number, infoDim = 0): { width: number; reward: number; flags: number; info: number } {
  return { width: Math.max(obsDim + 2 + infoDim, actionDim + 1), reward: obsDim, flags: obsDim + 1, info: obsDim + 2 };
}

const CONTROL_BYTES = 64 * 4;
/** Float64 scalars: the seed (in), the copy's maxSteps (out). */
const SCALAR_COUNT = 2;
/** The text block's least size: a text env's results (messages of at most 1000 characters, as JSON) and error messages. */
export const TEXT_BYTES = 16 * 1024;

/** Typed views over one shared buffer. */
export class Channel {
  readonly control: Int32Array;
  readonly scalars: Float64Array;
  /** Step records, or a reset's observation. */
  readonly numbers: Float64Array;
  readonly text: Uint8Array;

  private constructor(readonly buffer: SharedArrayBuffer, capacity: number, textBytes: number) {
    this.control = new Int32Array(buffer, 0, CONTROL_BYTES / 4);
    this.scalars = new Float64Array(buffer, CONTROL_BYTES, SCALAR_COUNT);
    this.numbers = new Float64Array(buffer, CONTROL_BYTES + SCALAR_COUNT * 8, capacity);
    this.text = new Uint8Array(buffer, CONTROL_BYTES + (SCALAR_COUNT + capacity) * 8, textBytes);
  }

  /**
   * A channel with room for `capacity` numbers of step records and `textBytes` of text: at
   * least TEXT_BYTES, more where the env's params are long (every copy's params pass through it).
   */
  static create(capacity: number, textBytes = TEXT_BYTES): Channel {
    const size = Math.max(TEXT_BYTES, Math.ceil(textBytes / 8) * 8);
    const buffer = new SharedArrayBuffer(CONTROL_BYTES + (SCALAR_COUNT + capacity) * 8 + size);
    new Int32Array(buffer, 0, CONTROL_BYTES / 4)[SLOT.textBytes] = size;
    return new Channel(buffer, capacity, size);
  }

  /** The other side's view of a channel's buffer. */
  static over(buffer: SharedArrayBuffer): Channel {
    const textBytes = new Int32Array(buffer, 0, CONTROL_BYTES / 4)[SLOT.textBytes];
    return new Channel(buffer, (buffer.byteLength - CONTROL_BYTES - textBytes) / 8 - SCALAR_COUNT, textBytes);
  }

  /** Whether `message` fits the text block whole (what is parsed on the other side must). */
  fits(message: string): boolean {
    return Buffer.byteLength(message) <= this.text.length;
  }

  /** Writes `message` (cut to the block's size: an error message may be) and its length. */
  writeText(message: string): void {
    const { written } = new TextEncoder().encodeInto(message, this.text);
    Atomics.store(this.control, SLOT.textLength, written);
  }

  readText(): string {
    // TextDecoder refuses views of shared memory: copy the bytes out first.
    return new TextDecoder().decode(this.text.slice(0, Atomics.load(this.control, SLOT.textLength)));
  }
}

/** Sent by the worker once the module loaded and a first copy passed its probe (or failed). */
export type WorkerHello =
  | {
      readonly type: 'ready'; readonly kind: string; readonly observationSpace: unknown; readonly actionSpace: unknown; readonly obsFields: readonly string[]; readonly infoFields: readonly string[];
      /** A goal-conditioned module's goal and achieved observation names. */
      readonly goal?: { readonly goal: readonly string[]; readonly achieved: readonly string[] };
    }
  | { readonly type: 'ready-text'; readonly kind: string; readonly bounds: TextModuleSpec; readonly infoFields: readonly string[]; readonly hasExpert: boolean }
  | { readonly type: 'failed'; readonly message: string };

/** The worker's workerData. */
export interface WorkerSetup {
  /** The bundled module, as a file the worker can import. */
  readonly file: string;
  /** How messages name the module (its source file). */
  readonly origin: string;
  /** The params of the probe copy. */
  readonly params: Record<string, unknown>;
}
