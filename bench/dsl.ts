// Front-end speed: parse + check of a generated 5,000-line file with 300 declarations, and a
// re-check after a one-character edit (incremental: only the edited declaration is parsed
// again, then the whole workspace is checked). Prints medians after warm-up, on one core.
import * as path from 'node:path';
import { analyze, parse, Workspace } from '../dsl/index.js';
import { generateSpec } from './generate.js';
import { median, report, time } from './stats.js';

export function benchDsl(): void {
  const text = generateSpec(300, 5000);
  const lines = text.split('\n').length;
  const file = path.resolve('bench-generated.rlx');
  const declarations = parse(text).file.declarations.length;

  const fresh = () => {
    const ws = new Workspace({ readFile: () => undefined });
    ws.setOverlay(file, text);
    return ws;
  };
  const errorsOf = (ws: Workspace) => [...analyze(ws, [file]).diagnostics.values()].flat().filter((d) => d.severity === 'error').length;
  const problems = errorsOf(fresh());
  if (problems > 0) throw new Error(`the generated benchmark file has ${problems} errors`);

  const parseOnly = time(() => parse(text), 30, 10);
  const full = time(() => analyze(fresh(), [file]), 30, 10);

  // One-character edit: change a digit of a max_steps value back and forth.
  const ws = fresh();
  analyze(ws, [file]);
  const at = text.indexOf('max_steps: 2') + 'max_steps: '.length;
  let flip = false;
  const edit = time(() => {
    flip = !flip;
    ws.setOverlay(file, text.slice(0, at) + (flip ? '3' : '2') + text.slice(at + 1));
    analyze(ws, [file]);
  }, 30, 10);

  report('dsl', [
    ['file', `${lines} lines, ${declarations} declarations`],
    ['parse only (median)', `${median(parseOnly).toFixed(2)} ms`],
    ['parse + check (median)', `${median(full).toFixed(2)} ms  (target < 50 ms)`],
    ['throughput', `${Math.round(lines / (median(full) / 1000)).toLocaleString('en-US')} lines/s`],
    ['re-check after a 1-char edit (median)', `${median(edit).toFixed(2)} ms  (target < 20 ms; the edited declaration re-parsed, the workspace re-checked)`],
    ['check share of parse + check', `${((1 - median(parseOnly) / median(full)) * 100).toFixed(0)}%`],
  ]);
}
