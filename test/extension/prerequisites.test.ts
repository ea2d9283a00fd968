// RLX_EDITOR_GREP runs a picked editor test with the earlier tests it uses (prerequisites.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withPrerequisites } from './prerequisites.js';

const TITLES = [
  'language completes property names',
  'training trains a tiny experiment from its Train lens',
  'training writes the run directory under the runs folder',
  'training trains from "rlx: Train Experiment…" through its quick pick',
  "training opens a run's plan, and deletes a run when confirmed",
  'reattach starts a long run from its Train lens, then reloads the window while it trains',
  'reattach after the reload: the status bar, the progress and the lens follow the run again, and Stop stops it without asking which',
  'screenshot shows a spec with its diagnostics and the Runs view',
];

const runs = (grep: string) => {
  const { grep: expanded } = withPrerequisites(grep, TITLES);
  return TITLES.filter((title) => new RegExp(expanded).test(title));
};

test('a test that uses an earlier one\'s run runs with it, and the line says which and why', () => {
  assert.deepEqual(runs('^training writes'), ['training trains a tiny experiment from its Train lens', 'training writes the run directory under the runs folder']);
  assert.deepEqual(withPrerequisites('^training writes', TITLES).added, [
    "'training trains a tiny experiment from its Train lens', which 'training writes the run directory under the runs folder' needs (its run and tiny.rlx)",
  ]);
  // Its prerequisite's own prerequisite too.
  assert.deepEqual(runs("deletes a run"), [
    'training trains a tiny experiment from its Train lens',
    'training trains from "rlx: Train Experiment…" through its quick pick',
    "training opens a run's plan, and deletes a run when confirmed",
  ]);
  assert.deepEqual(runs('^reattach after'), TITLES.filter((t) => t.startsWith('reattach ')));
  assert.deepEqual(runs('^screenshot'), ['training trains a tiny experiment from its Train lens', 'screenshot shows a spec with its diagnostics and the Runs view']);
});

test('a test that needs nothing runs alone, with the grep unchanged', () => {
  assert.deepEqual(withPrerequisites('^language ', TITLES), { grep: '^language ', added: [] });
  assert.deepEqual(runs('^training '), TITLES.filter((t) => t.startsWith('training ')));
});
