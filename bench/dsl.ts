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
    ...inheritanceChains().map(([links, ms]): [string, string] => [`inheritance chain of ${links.toLocaleString('en-US')} links, parse + check`, `${ms.toFixed(0)} ms`]),
  ]);
}

/**
 * `algorithm A1 = PPO { ... }`, `algorithm A2 = A1 { ... }`, ... with an experiment at the end:
 * the checker merges each declaration's members onto its base's once, so the time grows
 * linearly with the length of the chain (issue 14 item 11: 2,000 links took 9.5 s, 10,000 over 120 s).
 */
function inheritanceChains(): [links: number, ms: number][] {
  return [2_000, 10_000].map((links) => {
    const lines = ['algorithm A0 = PPO { learning_rate: 1e-3 }'];
    for (let i = 1; i < links; i++) lines.push(`algorithm A${i} = A${i - 1} { epochs: ${1 + (i % 9)} }`);
    lines.push(`env Pole = CartPole\npolicy Actor = mlp\nexperiment E { env: Pole, policy: Actor, algorithm: A${links - 1}, budget: 1k }`);
    const text = lines.join('\n') + '\n';
    const file = path.resolve(`bench-chain-${links}.rlx`);
    const run = () => {
      const ws = new Workspace({ readFile: () => undefined });
      ws.setOverlay(file, text);
      const errors = [...analyze(ws, [file]).diagnostics.values()].flat().filter((d) => d.severity === 'error');
      if (errors.length > 0) throw new Error(`the chain of ${links} has errors: ${errors[0].message}`);
    };
    return [links, median(time(run, 3, 1))];
  });
}
