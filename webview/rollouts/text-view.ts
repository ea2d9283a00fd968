// A text run's recorded batch (TextTask, GuessNumber; runtime/run/text-rollouts.ts): the
// groups of the batch in a list (each group's start: a prompt with its target, or a
// dialogue's opening), and the selected group's samples in a table: the completion or the
// dialogue turn by turn, the reward, each reward term, the advantage the learner trained on,
// and the verdict. Samples are sorted by advantage, highest first; `#` keeps the sampled order.
// The final policy's held-out answers (`recorded: final`, one greedy sample per start, no
// advantage) read the same way, the ones it got wrong listed first.
// Every text from the file goes in as text nodes (a completion may read "<script>").
import type { TextGroup, TextRolloutHeader, TextSample } from '../protocol.js';
import { h, replaceChildren, setText } from '../shared/dom.js';
import { formatShort, formatSteps, formatValue } from '../shared/format.js';

/** What a row of the samples table says, for the page's test hook. */
export interface SampleRow {
  /** 1-based position in the sampled order. */
  index: number;
  text?: string;
  turns?: [string, string][];
  reward: number;
  terms: Record<string, number>;
  /** The advantage it was trained with; null for the final policy's answers. */
  advantage: number | null;
  verdict: Verdict;
}

export type Verdict = 'correct' | 'wrong' | 'success' | 'failed' | 'none';

export function verdictOf(sample: TextSample): Verdict {
  if (sample.correct !== undefined) return sample.correct ? 'correct' : 'wrong';
  if (sample.success !== undefined) return sample.success ? 'success' : 'failed';
  return 'none';
}

const VERDICT_TEXT: Record<Verdict, string> = { correct: '✓ correct', wrong: '✗ wrong', success: '✓ success', failed: '✗ failed', none: '–' };

/** `+0.5`, `−0.25`, `0`: the sign always shown, since it says whether the sample was pushed up or down; 3 significant digits. */
export function signed(value: number): string {
  if (!Number.isFinite(value) || value === 0) return formatValue(value);
  return value > 0 ? `+${formatShort(value)}` : `−${formatShort(-value)}`;
}

/** A table cell of a number: short, the exact value in its tooltip. */
function numberCell(value: number, attrs: Record<string, string> = {}): HTMLElement {
  return h('td', { class: 'num', text: formatShort(value), attrs: { ...attrs, ...(Number.isFinite(value) ? { title: String(value) } : {}) } });
}

/**
 * What the group's prompt says: the task's (`start`), and, for a pretrained model, the text it
 * read (through its chat template, special tokens written out), which is what its completions
 * answer; absent where the model read the task's prompt itself.
 */
export function groupPrompt(group: TextGroup): { task: string; read?: string } {
  return group.prompt !== undefined && group.prompt !== group.start ? { task: group.start, read: group.prompt } : { task: group.start };
}

/** The group's samples in table order: advantage, highest first; ties (and samples without one) in the sampled order. */
export function sampleRows(group: TextGroup, terms: readonly string[]): SampleRow[] {
  return group.samples
    .map((s, i) => ({
      index: i + 1,
      ...(s.text !== undefined ? { text: s.text } : {}),
      ...(s.turns !== undefined ? { turns: s.turns.map(([who, said]) => [who, said] as [string, string]) } : {}),
      reward: s.reward,
      terms: Object.fromEntries(terms.map((name) => [name, s.terms?.[name] ?? Number.NaN])),
      advantage: typeof s.advantage === 'number' ? s.advantage : null,
      verdict: verdictOf(s),
    }))
    .sort((a, b) => (b.advantage ?? 0) - (a.advantage ?? 0) || a.index - b.index);
}

const good = (v: Verdict) => v === 'correct' || v === 'success';
const bad = (v: Verdict) => v === 'wrong' || v === 'failed';

/** `3/4 correct · mean reward 0.55`: a group at a glance, for the list; a held-out answer: `✗ wrong: 175 · reward 0.1`. */
function groupSummary(group: TextGroup, heldOut: boolean): string {
  if (heldOut) {
    const sample = group.samples[0];
    if (!sample) return '';
    const verdict = verdictOf(sample);
    const answer = sample.text !== undefined ? `: ${sample.text === '' ? '(empty)' : sample.text}` : sample.turns ? ` in ${sample.turns.filter(([who]) => isAgent(who)).length} turns` : '';
    return `${VERDICT_TEXT[verdict]}${verdict === 'none' ? '' : answer} · reward ${formatValue(sample.reward)}`;
  }
  const verdicts = group.samples.map(verdictOf).filter((v) => v !== 'none');
  const right = verdicts.filter(good).length;
  const word = group.samples.some((s) => s.success !== undefined) ? 'succeed' : 'correct';
  const mean = group.samples.reduce((sum, s) => sum + s.reward, 0) / Math.max(1, group.samples.length);
  return [verdicts.length > 0 ? `${right}/${verdicts.length} ${word}` : '', `mean reward ${formatValue(mean)}`].filter(Boolean).join(' · ');
}

/** Whether a file holds the final policy's held-out answers rather than a learner's batch. */
export function isHeldOut(header: TextRolloutHeader): boolean {
  return header.recorded === 'final';
}

/** The order groups are listed in: the held-out answers the policy got wrong first (each part in file order); a batch as sampled. */
export function listOrder(groups: readonly TextGroup[], heldOut: boolean): number[] {
  const all = groups.map((_, i) => i);
  if (!heldOut) return all;
  const wrong = (g: TextGroup) => g.samples.some((s) => bad(verdictOf(s)));
  return [...all.filter((i) => wrong(groups[i])), ...all.filter((i) => !wrong(groups[i]))];
}

/** `255 correct (99.6%), 1 wrong, listed first`: the held-out answers at a glance. */
function heldOutSummary(groups: readonly TextGroup[]): string {
  const verdicts = groups.map((g) => (g.samples[0] ? verdictOf(g.samples[0]) : 'none'));
  const dialogue = groups.some((g) => g.samples.some((s) => s.turns !== undefined));
  const right = verdicts.filter(good).length;
  const wrong = verdicts.filter(bad).length;
  if (right + wrong === 0) return '';
  const [yes, no] = dialogue ? ['succeeded', 'failed'] : ['correct', 'wrong'];
  const share = ((100 * right) / (right + wrong)).toFixed(1);
  return `${right} ${yes} (${share}%)${wrong > 0 ? `, ${wrong} ${no}, listed first` : `, none ${no}`}`;
}

export class TextBatchView {
  readonly element: HTMLElement;
  private readonly summary = h('p', { class: 'batch-summary' });
  private readonly list = h('ol', {
    class: 'group-list',
    id: 'group-list',
    role: 'listbox',
    tabIndex: 0,
    attrs: { 'aria-label': 'Groups of the batch: one start each' },
  });
  private readonly detail = h('section', { class: 'group-detail', attrs: { 'aria-live': 'polite' } });
  private readonly listTitle = h('h3', { text: 'Prompts' });
  private header: TextRolloutHeader | undefined;
  private groups: TextGroup[] = [];
  /** Group indices in list order. */
  private order: number[] = [];
  private selectedIndex = 0;
  rows: SampleRow[] = [];

  constructor(private readonly onSelect: (group: number) => void) {
    this.element = h(
      'div',
      { class: 'text-batch', hidden: true },
      this.summary,
      h('div', { class: 'text-batch-body' }, h('nav', { class: 'groups', attrs: { 'aria-label': 'Groups' } }, this.listTitle, this.list), this.detail),
    );
    this.list.addEventListener('keydown', (e) => this.onKey(e));
  }

  get selected(): number {
    return this.selectedIndex;
  }

  /** Group indices as listed. */
  get listed(): readonly number[] {
    return this.order;
  }

  /** Shows a file's groups; `selected` is a group index, the first listed when absent. */
  load(header: TextRolloutHeader, groups: TextGroup[], selected?: number): void {
    this.header = header;
    this.groups = groups;
    const heldOut = isHeldOut(header);
    this.order = listOrder(groups, heldOut);
    const dialogue = groups.some((g) => g.samples.some((s) => s.turns !== undefined));
    const samples = groups.flatMap((g) => g.samples);
    const mean = samples.reduce((sum, s) => sum + s.reward, 0) / Math.max(1, samples.length);
    const starts = dialogue ? 'dialogue' : 'prompt';
    const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
    replaceChildren(
      this.summary,
      h('strong', { text: header.env }),
      ` ${header.task} · `,
      ...(heldOut
        ? [`final policy, greedy (${header.algorithm}, stage ${header.stage}, step ${formatSteps(header.step)}) · `, `${count(groups.length, `held-out ${starts}`)}: ${heldOutSummary(groups)} · mean reward ${formatValue(mean)}`]
        : [`step ${formatSteps(header.step)} · ${header.algorithm}, stage ${header.stage} · `, `${count(groups.length, 'group')} of ${header.group_size} · mean reward ${formatValue(mean)}`]),
    );
    setText(this.listTitle, heldOut ? (dialogue ? 'Held-out dialogues' : 'Held-out prompts') : dialogue ? 'Dialogue openings' : 'Prompts');
    replaceChildren(
      this.list,
      ...this.order.map((i) => {
        const g = groups[i];
        return h(
          'li',
          { role: 'option', id: `group-${i}`, attrs: { 'data-group': i, ...(heldOut && g.samples[0] ? { 'data-verdict': verdictOf(g.samples[0]) } : {}) }, on: { click: () => this.select(i) } },
          // Held-out dialogues can share their opening ("1..100"): their place in the set tells them apart.
          heldOut ? h('span', { class: 'group-index', text: `#${i + 1} ` }) : null,
          h('code', { class: 'start', text: g.start }),
          g.target !== undefined ? h('span', { class: 'target' }, ' → ', h('code', { text: g.target })) : null,
          h('span', { class: 'group-summary', text: groupSummary(g, heldOut) }),
        );
      }),
    );
    this.list.setAttribute('aria-label', heldOut ? `Held-out ${starts}s, the final policy's wrong answers first` : dialogue ? 'Dialogue openings of the batch' : 'Prompts of the batch');
    this.select(selected === undefined ? (this.order[0] ?? 0) : Math.min(Math.max(0, selected), groups.length - 1), false);
  }

  select(index: number, notify = true): void {
    if (index < 0 || index >= this.groups.length) {
      replaceChildren(this.detail, h('p', { class: 'placeholder', text: 'This batch file holds no groups.' }));
      this.rows = [];
      return;
    }
    this.selectedIndex = index;
    for (const item of this.list.children) item.setAttribute('aria-selected', String(item.id === `group-${index}`));
    this.list.setAttribute('aria-activedescendant', `group-${index}`);
    this.list.querySelector(`#group-${index}`)?.scrollIntoView?.({ block: 'nearest' });
    this.renderGroup(this.groups[index]);
    if (notify) this.onSelect(index);
  }

  /** Arrows, Home and End move through the list as shown. */
  private onKey(e: KeyboardEvent): void {
    const last = this.order.length - 1;
    const at = this.order.indexOf(this.selectedIndex);
    const next = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: last }[e.key];
    if (next === undefined || last < 0) return;
    e.preventDefault();
    this.select(this.order[Math.min(Math.max(0, next), last)]);
  }

  private renderGroup(group: TextGroup): void {
    const terms = this.header?.terms ?? [];
    this.rows = sampleRows(group, terms);
    const dialogue = group.samples.some((s) => s.turns !== undefined);
    const heldOut = this.header !== undefined && isHeldOut(this.header);
    // The final policy's answers were never trained on: no advantage column.
    const trained = this.rows.some((r) => r.advantage !== null);
    const head = ['#', dialogue ? 'dialogue' : 'completion', 'reward', ...terms.map((t) => `term: ${t}`), ...(trained ? ['advantage'] : []), 'verdict'];
    const caption = heldOut
      ? `The final policy's greedy ${dialogue ? 'dialogue' : 'completion'} (its last evaluation's)`
      : `${group.samples.length} samples, highest advantage first (# is the order they were sampled in)`;
    const { read } = groupPrompt(group);
    replaceChildren(
      this.detail,
      h(
        'h3',
        { class: 'group-title' },
        dialogue ? 'Opening ' : 'Prompt ',
        h('code', { text: group.start }),
        group.target !== undefined ? ' · target ' : null,
        group.target !== undefined ? h('code', { text: group.target }) : null,
      ),
      read !== undefined
        ? h('details', { class: 'rendered-prompt' }, h('summary', { text: 'As the model read it (through its chat template)' }), h('pre', { text: read }))
        : null,
      h(
        'table',
        { class: 'samples', attrs: { 'data-table': 'samples' } },
        h('caption', { class: 'hint', text: caption }),
        h('thead', {}, h('tr', {}, ...head.map((c, i) => h('th', { class: i === 1 || i === head.length - 1 ? '' : 'num', text: c, attrs: { scope: 'col' } })))),
        h(
          'tbody',
          {},
          ...this.rows.map((row) =>
            h(
              'tr',
              { attrs: { 'data-sample': row.index, 'data-verdict': row.verdict } },
              h('th', { class: 'num', text: String(row.index), attrs: { scope: 'row' } }),
              h('td', { class: 'sample' }, row.turns ? dialogueView(row.turns) : completionView(row.text)),
              numberCell(row.reward),
              ...terms.map((t) => numberCell(row.terms[t], { 'data-term': t })),
              trained ? advantageCell(row.advantage) : null,
              h('td', { class: `verdict ${row.verdict}`, text: VERDICT_TEXT[row.verdict] }),
            ),
          ),
        ),
      ),
    );
  }
}

function advantageCell(advantage: number | null): HTMLElement {
  if (advantage === null) return h('td', { class: 'num advantage', text: '–' });
  return h('td', { class: `num advantage ${advantage > 0 ? 'positive' : advantage < 0 ? 'negative' : 'zero'}`, text: signed(advantage), attrs: { title: String(advantage) } });
}

function completionView(text: string | undefined): HTMLElement {
  if (text === undefined) return h('span', { class: 'placeholder', text: 'no text recorded' });
  if (text === '') return h('span', { class: 'placeholder', text: '(empty)' });
  return h('code', { class: 'completion', text });
}

/** The agent's own turns: `assistant` (runs before roles were written: `agent`). */
const isAgent = (who: string) => who === 'assistant' || who === 'agent';

/** Speakers a dialogue's messages have: the chat template's roles, and the words of runs written before them (turns after the opening). */
const SPEAKERS = new Set(['system', 'user', 'assistant', 'env', 'agent']);

/** The dialogue, one message a line, its role named (not told by colour alone). */
function dialogueView(turns: [string, string][]): HTMLElement {
  return h(
    'ol',
    { class: 'dialogue' },
    ...turns.map(([who, said]) =>
      h('li', { class: `turn ${SPEAKERS.has(who) ? who : 'user'}` }, h('span', { class: 'speaker', text: who }), said === '' ? h('span', { class: 'placeholder', text: '(empty)' }) : h('code', { class: 'said', text: said })),
    ),
  );
}
