// Writes addition-pairs.jsonl beside this file: preference pairs for examples/addition-dpo.rlx,
// two-digit sums in TextTask's `addition(digits: 2, pad: true)` format ("05+37=" -> "042"), the
// chosen answer right and the rejected one the right answer with one digit changed (the kind of
// near miss a half-trained model makes). Seeded, so the file is the same every time:
//
//   node examples/data/make-addition-pairs.mjs [COUNT]
//
// Pairs of the task's held-out prompts are left in: the trainer leaves them out itself.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const count = Number(process.argv[2] ?? 4000);
// mulberry32: a small seeded generator, enough to draw prompts and digits.
let state = 0x2545f491;
function random() {
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (n) => Math.floor(random() * n);
const pad = (n, width) => String(n).padStart(width, '0');

const lines = [];
for (let k = 0; k < count; k++) {
  const a = int(100);
  const b = int(100);
  const chosen = pad(a + b, 3);
  const at = int(3);
  const digit = (Number(chosen[at]) + 1 + int(9)) % 10; // any digit but the right one
  const rejected = chosen.slice(0, at) + digit + chosen.slice(at + 1);
  lines.push(JSON.stringify({ prompt: `${pad(a, 2)}+${pad(b, 2)}=`, chosen, rejected }));
}
writeFileSync(fileURLToPath(new URL('./addition-pairs.jsonl', import.meta.url)), lines.join('\n') + '\n');
