// What `rlx tokenize` and `rlx generate` share: the model folder they name, the chat options
// (--chat, --system, --chat-var) and lists of token ids given on the command line.
import { UserError } from '../files.js';

export const CHAT_OPTIONS = {
  chat: { type: 'boolean' },
  system: { type: 'string' },
  'chat-var': { type: 'string', multiple: true },
} as const;

/** --chat-var NAME=VALUE: the value as JSON where it parses (true, 3, "x"), else the text itself. */
export function chatVariables(given: readonly string[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const item of given ?? []) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new UserError(`--chat-var needs NAME=VALUE (for example enable_thinking=false), got '${item}'`);
    const value = item.slice(eq + 1);
    try {
      out[item.slice(0, eq)] = JSON.parse(value);
    } catch {
      out[item.slice(0, eq)] = value;
    }
  }
  return out;
}

/** "1,2,3" -> [1, 2, 3], each a token id below `vocab`. */
export function tokenIds(option: string, text: string, vocab: number): number[] {
  const ids = text.split(',').map((s) => s.trim());
  return ids.map((s) => {
    const id = Number(s);
    if (s === '' || !Number.isInteger(id) || id < 0 || id >= vocab) throw new UserError(`${option} needs token ids from 0 to ${vocab - 1} separated by commas, got '${s}'`);
    return id;
  });
}
