// The re-check a keystroke costs, in process (no server): the same edits analysed from scratch
// (every declaration checked; parses reused) and with a CheckCache (declarations the edit cannot
// have changed replayed), interleaved edit by edit and in alternating order, so that both meet
// the same load on a shared machine. Medians are printed, never asserted.
import { analyze, CheckCache, Workspace } from '../dsl/index.js';
import { seededRandom } from '../test/helpers/random.js';
import { generateSpec } from './generate.js';
import { median, report } from './stats.js';

const FILE = '/bench/recheck.rlx';
const OPTIONS = { maxDiagnosticsPerFile: 1000 }; // as the language server checks

export function benchRecheck(): void {
  const big = generateSpec(300, 5000);
  const lines = big.split('\n');
  const openers = lines.flatMap((l, i) => (/\{\s*$/.test(l) ? [i] : []));
  const random = seededRandom(17);
  // Typing in a block: a new line `  l` after a random `{`, then taken out again.
  const typing: string[] = [];
  for (let i = 0; i < 40; i++) {
    const line = openers[Math.floor(random() * openers.length)];
    typing.push([...lines.slice(0, line + 1), '  l', ...lines.slice(line + 1)].join('\n'), big);
  }
  measure(`lsp: re-check per keystroke, ${lines.length}-line file (typing in a block, 80 edits)`, big, typing);

  const erroring = 'env A = Q\n'.repeat(100_000);
  const at = 50_000 * 'env A = Q\n'.length + 8;
  const flips = Array.from({ length: 6 }, (_, i) => erroring.slice(0, at) + (i % 2 === 0 ? 'R' : 'Q') + erroring.slice(at + 1));
  measure('lsp: re-check per keystroke, 100k erroring declarations (6 edits)', erroring, flips);
}

function measure(title: string, initial: string, texts: string[]): void {
  const scratch = workspaceWith(initial);
  const reusing = workspaceWith(initial);
  const cache = new CheckCache();
  analyze(scratch, [FILE], OPTIONS);
  analyze(reusing, [FILE], { ...OPTIONS, cache });
  const first = { ...cache.counts };
  const before: number[] = [];
  const after: number[] = [];
  const parse: number[] = [];
  texts.forEach((text, i) => {
    for (const ws of [scratch, reusing]) ws.setOverlay(FILE, text);
    const t0 = performance.now();
    reusing.unit(FILE); // the (incremental) parse, timed apart: both re-checks start from a parse
    parse.push(performance.now() - t0);
    scratch.unit(FILE);
    const runs: [() => void, number[]][] = [[() => analyze(scratch, [FILE], OPTIONS), before], [() => analyze(reusing, [FILE], { ...OPTIONS, cache }), after]];
    for (const [run, into] of i % 2 === 0 ? runs : runs.reverse()) {
      const t1 = performance.now();
      run();
      into.push(performance.now() - t1);
    }
  });
  const reused = cache.counts.reused - first.reused;
  const checked = cache.counts.checked - first.checked;
  report(title, [
    ['reparse (incremental)', `median ${median(parse).toFixed(1)} ms`],
    ['re-check from scratch', `median ${median(before).toFixed(1)} ms`],
    ['re-check reusing results', `median ${median(after).toFixed(1)} ms  (${reused.toLocaleString('en-US')} declarations replayed, ${checked.toLocaleString('en-US')} checked)`],
  ]);
}

function workspaceWith(text: string): Workspace {
  const ws = new Workspace({ readFile: () => undefined });
  ws.setOverlay(FILE, text);
  return ws;
}
