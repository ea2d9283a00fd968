// What `rlx tokenize` and `rlx generate` share: the model folder they name, the chat options
// (--chat, --system, --chat-var) and lists of token ids given on the command line.
import type { ChatFormat } from '../../hf/chat-template.js';
import { UserError } from '../files.js';
import { pythonLiteral } from './python-literal.js';

export const CHAT_OPTIONS = {
  chat: { type: 'boolean' },
  system: { type: 'string' },
  'chat-var': { type: 'string', multiple: true },
} as const;

/**
 * --chat-var NAME=VALUE: the value as JSON or as Python writes it (True, None, ['a'], {'k': 1}:
 * what apply_chat_template's users write), else the text itself. A variable the template never
 * reads is said on stderr (`command`: who says it): it would change nothing, so a misspelt
 * name would pass unseen.
 */
export function chatVariables(given: readonly string[] | undefined, chat: Pick<ChatFormat, 'reads' | 'source'> | undefined, command: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const item of given ?? []) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new UserError(`--chat-var needs NAME=VALUE (for example enable_thinking=false), got '${item}'`);
    const name = item.slice(0, eq);
    const text = item.slice(eq + 1);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      const literal = pythonLiteral(text);
      value = literal === undefined ? text : literal;
    }
    Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
    if (chat && !chat.reads(name)) process.stderr.write(`rlx ${command}: warning: --chat-var ${name}: the chat template (${chat.source}) never reads '${name}', so it changes nothing; check the name\n`);
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
