// The messages between load.ts and the worker that tries a learner module (probe-worker.ts).

export interface ProbeRequest {
  readonly code: string;
  readonly label: string;
  readonly settings: Readonly<Record<string, number | boolean | string>>;
  readonly groupSize: number;
}

export type ProbeReply = { readonly ok: true } | { readonly ok: false; readonly message: string };
