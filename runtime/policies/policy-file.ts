// Reading a saved policy (checkpoints/policy-*.onnx, or any file given to `rlx eval --checkpoint`)
// back for onnxruntime: a regular file of bounded size, and a file onnxruntime cannot load (cut
// short by a full disk, damaged in a copy, not a model at all) is the user's to replace, said
// as such, not a bug in rlx.
import * as ort from 'onnxruntime-node';
import { InputError } from '../../shared/input-error.js';
import { readInputFile } from '../../shared/input-files.js';

/** A policy file that cannot be run; the message names the file and what to do. */
export class PolicyFileError extends InputError {
  override name = 'PolicyFileError';
}

/** The largest policy file read; far above what the trainer writes (a 2-layer transformer is ~1 MiB). */
export const MAX_POLICY_BYTES = 2 ** 30;

export const REPLACE_POLICY = 'name another checkpoint with --checkpoint FILE, or train again';

/** The bytes of a policy file (a FIFO or /dev/zero is refused before a byte is read). */
export function readPolicyFile(file: string): Buffer {
  return readInputFile(file, { what: 'policy', maxBytes: MAX_POLICY_BYTES });
}

/** An onnxruntime session over a policy's bytes; a file it cannot load is a PolicyFileError. */
export async function policySession(file: string, bytes: Uint8Array): Promise<ort.InferenceSession> {
  try {
    return await ort.InferenceSession.create(bytes, { executionProviders: ['cpu'], intraOpNumThreads: 1 });
  } catch (err) {
    const reason = (err as Error).message.split('\n')[0].slice(0, 200);
    throw new PolicyFileError(`${file} is not a model onnxruntime can load (${reason}); it may be damaged or cut short: ${REPLACE_POLICY}`, { cause: err });
  }
}
