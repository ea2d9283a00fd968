// What a user env module did wrong, said in words: the error its refusals throw and the
// descriptions of thrown and returned values its messages quote. Shared by the numeric and the
// text module envs and by the host that loads them, so none of them imports another for it.
import { InputError } from '../../shared/input-error.js';

/** A module that cannot be loaded or does not fulfil the interface; the message says what to fix. */
export class EnvModuleError extends InputError {
  override name = 'EnvModuleError';
}

/** What a thrown value whose description throws is called. */
const UNSHOWABLE = 'a value that cannot be shown (turning it into text threw)';

/** What a thrown value says, whatever was thrown: `throw "text"` and `throw undefined` too. */
export function describeThrown(value: unknown): string {
  // Never throws itself: an error while describing would replace the EnvModuleError that names
  // the module (a thrown object whose toString() or message getter throws).
  try {
    return describeValue(value);
  } catch {
    return UNSHOWABLE;
  }
}

function describeValue(value: unknown): string {
  if (value instanceof Error) return value.message || value.name;
  if (typeof value === 'string') return value === '' ? 'an empty string (not an Error)' : value;
  if (value === undefined || value === null) return `${String(value)} (not an Error)`;
  const text = short(value);
  return text === UNSHOWABLE ? text : `${text} (not an Error)`;
}


/** A value as a short line of JSON (or its String() when it has none), for messages; never throws. */
export function short(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined; // a cycle, a BigInt, a Proxy whose traps throw
  }
  if (text === undefined) {
    try {
      text = String(value);
    } catch {
      return UNSHOWABLE;
    }
  }
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
