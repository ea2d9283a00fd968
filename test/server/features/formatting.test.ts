import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TextEdit } from 'vscode-languageserver';
import { formatDocument, formatRange } from '../../../server/features/formatting.js';
import type { DocumentContext } from '../../../server/context.js';
import { fixture } from './fixture.js';

function apply(doc: DocumentContext, edits: TextEdit[]): string {
  let text = doc.unit.text;
  for (const e of [...edits].sort((a, b) => doc.lines.offset(b.range.start) - doc.lines.offset(a.range.start))) {
    text = text.slice(0, doc.lines.offset(e.range.start)) + e.newText + text.slice(doc.lines.offset(e.range.end));
  }
  return text;
}

/** The document after whole-document formatting. */
function check(source: string, expected: string): void {
  const f = fixture(source);
  assert.equal(apply(f.doc, formatDocument(f.doc)), expected);
}

/** The document after formatting the ⟦ ⟧ range. */
function checkRange(source: string, expected: string): void {
  const f = fixture(source);
  assert.equal(apply(f.doc, formatRange(f.doc, f.marks()[0])), expected);
}

const MESSY = 'env   Pole=CartPole{max_steps:500}\nalgorithm Tuned = PPO {\nepochs:4\n      gamma : 0.9}\n// about E\nexperiment E {   env :Pole,\npolicy: mlp }\n';

describe('document formatting', () => {
  it('formats through the dsl formatter, as edits of the changed lines only', () => {
    check(MESSY, 'env Pole = CartPole { max_steps: 500 }\n\nalgorithm Tuned = PPO {\n  epochs: 4\n  gamma: 0.9\n}\n\n// about E\nexperiment E {\n  env: Pole\n  policy: mlp\n}\n');
    const f = fixture(MESSY);
    assert.equal(formatDocument(f.doc).length, 3);
  });

  it('no edits for a formatted file, nor for one with syntax errors', () => {
    const formatted = 'algorithm T = PPO {\n  epochs: 4\n}\n';
    assert.deepEqual(formatDocument(fixture(formatted).doc), []);
    assert.deepEqual(formatDocument(fixture('algorithm T = PPO {\nepochs: \n').doc), []);
  });
});

describe('CRLF documents', () => {
  const CRLF = 'env Pole = CartPole { max_steps: 500 }\r\n\r\nalgorithm Tuned = PPO {\r\n  epochs: 4\r\n}\r\n';

  it('no edits for a formatted CRLF document', () => {
    const f = fixture(CRLF);
    assert.deepEqual(formatDocument(f.doc), []);
  });

  it('edits keep the CRLF line breaks, for the document and for a range', () => {
    check('env   Pole=CartPole{max_steps:500}\r\nalgorithm Tuned = PPO {\r\nepochs:4}\r\n', CRLF);
    checkRange('env Pole = CartPole { max_steps: 500 }\r\nalgorithm Tuned = PPO { ⟦⟧epochs: 4, gamma: 0.9, clip: 0.2, gae_lambda: 0.95, entropy_coef: 0.01, value_coef: 0.5, minibatches: 4 }\r\n',
      'env Pole = CartPole { max_steps: 500 }\r\nalgorithm Tuned = PPO {\r\n  epochs: 4\r\n  gamma: 0.9\r\n  clip: 0.2\r\n  gae_lambda: 0.95\r\n  entropy_coef: 0.01\r\n  value_coef: 0.5\r\n  minibatches: 4\r\n}\r\n');
  });
});

describe('range formatting', () => {
  it('formats the declarations the range overlaps, and nothing else', () => {
    checkRange(MESSY.replace('algorithm Tuned', 'algorithm ⟦Tuned⟧'),
      'env   Pole=CartPole{max_steps:500}\nalgorithm Tuned = PPO {\n  epochs: 4\n  gamma: 0.9\n}\n// about E\nexperiment E {   env :Pole,\npolicy: mlp }\n');
    checkRange(MESSY.replace('epochs:4', 'epochs:4⟦').replace('policy: mlp', 'pol⟧icy: mlp'),
      'env   Pole=CartPole{max_steps:500}\nalgorithm Tuned = PPO {\n  epochs: 4\n  gamma: 0.9\n}\n// about E\nexperiment E {\n  env: Pole\n  policy: mlp\n}\n');
  });

  it('works while another declaration is broken', () => {
    checkRange('env Pole = CartPole {\nmax_steps:   500 ⟦⟧}\nalgorithm Tuned = PPO {\nepochs:\n',
      'env Pole = CartPole {\n  max_steps: 500\n}\nalgorithm Tuned = PPO {\nepochs:\n');
  });

  it('leaves a broken declaration as it is', () => {
    checkRange('algorithm Tuned = PPO {\nepochs: ⟦⟧\n', 'algorithm Tuned = PPO {\nepochs: \n');
  });

  it('takes the doc comment above and a comment after the brace with the declaration', () => {
    checkRange('/// Doc.\nenv   Pole = CartPole {  max_steps: ⟦⟧500  } // note\n', '/// Doc.\nenv Pole = CartPole { max_steps: 500 } // note\n');
  });
});
