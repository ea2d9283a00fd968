// Completion and hover in a learner module's body (`algorithm Mine = module("./mine.ts") { }`):
// the settings its spec declares, read from the module's text, next to rlx's own.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { completion } from '../../../server/features/completion/index.js';
import { hover } from '../../../server/features/hover.js';
import { fixture } from './fixture.js';

const MINE_TS = `export const spec = {
  kind: 'text',
  doc: 'W-REINFORCE: right answers pushed up gently.',
  settings: {
    positive_weight: { type: 'number', default: 0.1, min: 0, max: 10, doc: 'Weight of a right answer.' },
    mode: { type: 'choice', options: ['mean', 'sum'], default: 'mean' },
  },
};
`;

describe('a learner module in the editor', () => {
  it('completes its own settings and rlx\'s in its body', () => {
    const f = fixture({ 'main.rlx': 'algorithm Mine = module("./mine.ts") { $0 }', 'mine.ts': MINE_TS });
    const labels = completion(f.doc, f.cursor).map((i) => i.label);
    for (const name of ['positive_weight', 'mode', 'group_size', 'learning_rate']) assert.ok(labels.includes(name), `${name} not offered: ${labels.join(', ')}`);
  });

  it('completes a choice setting\'s options', () => {
    const f = fixture({ 'main.rlx': 'algorithm Mine = module("./mine.ts") { mode: $0 }', 'mine.ts': MINE_TS });
    assert.deepEqual(completion(f.doc, f.cursor).map((i) => i.label).filter((l) => l === 'mean' || l === 'sum'), ['mean', 'sum']);
  });

  it('hovers a setting with its doc and default', () => {
    const f = fixture({ 'main.rlx': 'algorithm Mine = module("./mine.ts") { positive_w$0eight: 0.5 }', 'mine.ts': MINE_TS });
    const value = (hover(f.doc, f.cursor)?.contents as { value: string } | undefined)?.value ?? '';
    assert.match(value, /Weight of a right answer\./);
    assert.match(value, /0\.1/);
  });

  it('hovers the algorithm with the module\'s own doc', () => {
    const f = fixture({ 'main.rlx': 'algorithm Mi$0ne = module("./mine.ts") { positive_weight: 0.5 }', 'mine.ts': MINE_TS });
    const value = (hover(f.doc, f.cursor)?.contents as { value: string } | undefined)?.value ?? '';
    assert.match(value, /W-REINFORCE: right answers pushed up gently\./);
  });
});
