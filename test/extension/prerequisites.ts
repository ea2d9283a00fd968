// RLX_EDITOR_GREP picks editor tests by full title (a mocha grep). A few tests use what an
// earlier one made: the training suite's first run (its run folder and tiny.rlx), the window
// reload that reattach's first test performs. Picked alone they would fail on a missing run, so
// their prerequisites run with them, and the harness says which it added and why.

/** The tests that use what another one made, and that one's full title. */
export const PREREQUISITES: readonly { readonly tests: RegExp; readonly needs: string; readonly why: string }[] = [
  {
    tests: /^training (?!trains a tiny experiment from its Train lens$)/,
    needs: 'training trains a tiny experiment from its Train lens',
    why: 'its run and tiny.rlx',
  },
  { tests: /^training opens a run's plan, and deletes a run when confirmed$/, needs: 'training trains from "rlx: Train Experiment…" through its quick pick', why: 'the run it deletes' },
  { tests: /^screenshot /, needs: 'training trains a tiny experiment from its Train lens', why: 'tiny.rlx and a run in the Runs view' },
  { tests: /^reattach after the reload/, needs: 'reattach starts a long run from its Train lens, then reloads the window while it trains', why: 'the run and the reload' },
];

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The grep that runs the tests `grep` picks among `titles` together with what they need; and
 * a line for each test added ("X, for Y: what it makes"). Unchanged when nothing is needed.
 */
export function withPrerequisites(grep: string, titles: readonly string[]): { grep: string; added: string[] } {
  const picked = new RegExp(grep);
  const needed = new Map<string, string>();
  const chosen = titles.filter((title) => picked.test(title));
  for (let i = 0; i < chosen.length; i++) {
    for (const rule of PREREQUISITES) {
      if (!rule.tests.test(chosen[i]!) || picked.test(rule.needs) || needed.has(rule.needs)) continue;
      needed.set(rule.needs, `'${rule.needs}', which '${chosen[i]}' needs (${rule.why})`);
      chosen.push(rule.needs); // its own prerequisites too
    }
  }
  if (needed.size === 0) return { grep, added: [] };
  return { grep: `(?:${grep})|^(?:${[...needed.keys()].map(escape).join('|')})$`, added: [...needed.values()] };
}
