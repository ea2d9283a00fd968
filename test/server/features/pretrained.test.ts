// The editor on pretrained policies: hover with the model's figures (the hf-tiny Qwen2 folder:
// 2 layers, 4 heads and 2 key/value heads of 16, width 64, MLP 160, vocab 400, context 128, tied
// embeddings: 112,192 parameters) and the memory estimate; completion of the folder path.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { CompletionItemKind, type CompletionItem } from 'vscode-languageserver';
import { completion } from '../../../server/features/completion/index.js';
import { hover } from '../../../server/features/hover.js';
import { signatureHelp } from '../../../server/features/signature-help.js';
import { plainText } from '../../../server/markup.js';
import { HF_TINY, tiny, written } from '../../helpers/pretrained.js';
import { fixture } from './fixture.js';

const TEXT = 'env Arith = TextTask { task: addition(digits: 2), max_tokens: 4 }\n';

function hoverText(source: string): { value: string; range: unknown; marked: unknown } {
  const f = fixture(source);
  const result = hover(f.doc, f.cursor);
  assert.ok(result, 'no hover');
  return { value: (result.contents as { value: string }).value, range: result.range, marked: f.marks()[0] };
}

const QWEN2_FACTS = [
  '- Architecture: Qwen2 (model_type `qwen2`)',
  '- Parameters: 112K (112,192)',
  '- Layers: 2',
  '- Heads: 4 query, 2 key/value (grouped-query attention); head_dim 16',
  '- Width: 64; MLP width: 160 (SwiGLU)',
  '- Vocabulary: 400 tokens',
  '- Context: 128 tokens',
  '- Stored dtype: float32 (rlx computes in float32)',
  '- Embeddings: tied to the output head',
];

function inOrder(value: string, expected: string[]): void {
  let from = 0;
  for (const line of expected) {
    const at = value.indexOf(line, from);
    assert.ok(at >= 0, `hover lacks (or misorders) ${JSON.stringify(line)}:\n${value}`);
    from = at + line.length;
  }
}

describe('hover on a pretrained policy', () => {
  it('on its name: the declaration, then the model\'s architecture and the memory of the experiment that trains it', () => {
    const { value, range, marked } = hoverText(`policy ⟦Ba$0se⟧ = ${tiny('qwen2')}\n${TEXT}experiment E { env: Arith, policy: Base, algorithm: GRPO, budget: 1k }\n`);
    assert.deepEqual(range, marked);
    inOrder(value, [
      'policy Base = pretrained("',
      `Model folder \`${written(path.join(HF_TINY, 'qwen2'))}\``,
      ...QWEN2_FACTS,
      '- Training: full fine-tuning (every weight)',
      'Memory in experiment E: weights (float32) 438.3 KiB, KL reference copy 438.3 KiB, gradients 438.3 KiB, Adam state 1.7 MiB, KV cache 8.0 MiB, activations (estimate; micro-batches of 128 rows) 417.0 MiB, total 727.2 MiB (with 307.2 MiB for the runtime itself; sampling and training take turns',
      '(GRPO 16 prompts x 8 completions, sequences of 128 tokens (the model\'s context of 128 tokens), full fine-tuning)',
    ]);
  });

  it('on the pretrained("...") call: the model; with LoRA, the parameters it trains; without an experiment, the weights', () => {
    const { value, range, marked } = hoverText(`policy Base = ⟦pretra$0ined("${written(path.join(HF_TINY, 'qwen2'))}")⟧ {\n  lora { rank: 4, targets: [q_proj, v_proj] }\n}\n`);
    assert.deepEqual(range, marked);
    // q_proj 64 -> 64 and v_proj 64 -> 32 in each of 2 layers: 4 x (128 + 96) x 2.
    inOrder(value, [...QWEN2_FACTS, '- LoRA: rank 4 on q_proj, v_proj: 1,792 trainable parameters (1.6% of the model)', 'Memory: weights (float32) 438.3 KiB, total 307.6 MiB (with 307.2 MiB for the runtime itself)']);
  });

  it('a folder that is not there says so; plain text for clients without markdown', () => {
    const { value } = hoverText('policy B$0ase = pretrained("./models/nowhere")\n');
    assert.match(value, /Model folder `\.\/models\/nowhere`: The folder does not exist\./);
    const plain = plainText(hoverText(`policy B$0ase = ${tiny('gpt2')}\n`).value);
    assert.match(plain, /- Architecture: GPT-2 \(model_type gpt2\)\n/);
    assert.doesNotMatch(plain, /`/);
  });
});

function complete(source: string, triggerCharacter?: string): CompletionItem[] {
  const f = fixture(source);
  return completion(f.doc, f.cursor, { triggerCharacter });
}

const edits = (items: CompletionItem[]) => items.map((i) => (i.textEdit && 'range' in i.textEdit ? i.textEdit.newText : undefined));

describe('completion of the folder in pretrained("...")', () => {
  const fixtures = written(path.dirname(HF_TINY)); // test/fixtures, relative to the spec

  it('completes the segment being typed to a folder, which asks for completion again', () => {
    const items = complete(`policy Base = pretrained("${fixtures}/hf-t$0")\n`, '/');
    const folder = items.find((i) => i.label === 'hf-tiny/');
    assert.ok(folder, `no hf-tiny/ among ${items.map((i) => i.label).join(', ')}`);
    assert.equal(folder.kind, CompletionItemKind.Folder);
    assert.equal(folder.command?.command, 'editor.action.triggerSuggest');
    const f = fixture(`policy Base = pretrained("${fixtures}/hf-t$0")\n`);
    const start = f.doc.unit.text.indexOf('hf-t');
    assert.deepEqual(folder.textEdit, { range: { start: f.doc.lines.position(start), end: f.doc.lines.position(start + 4) }, newText: 'hf-tiny/' });
  });

  it('lists the model folders in a folder, marked as models with their architecture; the others as folders', () => {
    const items = complete(`policy Base = pretrained("${written(HF_TINY)}/$0")\n`, '/');
    const models = items.filter((i) => i.kind === CompletionItemKind.Module).map((i) => [i.label, i.detail]);
    assert.deepEqual(models, [
      ['gpt2', 'model: GPT-2 (model_type gpt2), 134K parameters'],
      ['llama', 'model: Llama (model_type llama), 138K parameters'],
      ['qwen2', 'model: Qwen2 (model_type qwen2), 112K parameters'],
    ]);
    assert.deepEqual(items.filter((i) => i.kind === CompletionItemKind.Folder).map((i) => i.label), ['llama-lora/', 'qwen2-lora/']);
    assert.deepEqual(edits(items.filter((i) => i.label === 'qwen2')), ['qwen2']);
  });

  it('an empty path starts with ./; outside the path, / and " ask for nothing', () => {
    const start = complete('policy Base = pretrained("$0")\n', '"');
    assert.ok(edits(start).every((e) => e?.startsWith('./')), `${edits(start).join(', ')}`);
    assert.deepEqual(complete('experiment E { budget: 1 /$0 }\n', '/'), []);
    assert.deepEqual(complete('import "$0"\n', '"'), []);
  });
});

describe('signature help in pretrained(', () => {
  it('shows the folder parameter', () => {
    const f = fixture('policy Base = pretrained("./mo$0")\n');
    const help = signatureHelp(f.doc, f.cursor);
    assert.equal(help?.signatures[0]?.label, 'pretrained(path: string)');
    assert.equal(help?.activeParameter, 0);
  });
});
