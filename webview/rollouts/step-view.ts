// Everything recorded at one step: the observation by field name, the action (with its name,
// and probabilities and value estimate when the trainer logged them), the reward and each
// reward term (this step's value and the sum so far), and the done flags. Text runs record
// batches, not episodes: text-view.ts shows those.
import type { RolloutStep, RolloutHeader } from '../protocol.js';
import { h, replaceChildren } from '../shared/dom.js';
import { formatValue } from '../shared/format.js';
import { actionName } from './env-info.js';

export interface StepFacts {
  t: number;
  obs: Record<string, number>;
  action: string;
  probs?: number[];
  value?: number;
  reward: number;
  envReward: number;
  /** This step's value of each term. */
  terms: Record<string, number>;
  /** Each term summed over the steps so far (this one included). */
  termSums: Record<string, number>;
  returnSoFar: number;
  terminated: boolean;
  truncated: boolean;
}

export function stepFacts(header: RolloutHeader | undefined, steps: RolloutStep[], t: number): StepFacts | undefined {
  const step = steps[t];
  if (!step) return undefined;
  const fields = header?.obs_fields ?? [];
  const obs: Record<string, number> = {};
  step.obs.forEach((v, i) => (obs[fields[i] ?? `obs[${i}]`] = v));
  const termNames = header?.terms.length ? header.terms : Object.keys(step.terms ?? {});
  const terms: Record<string, number> = {};
  const termSums: Record<string, number> = {};
  let returnSoFar = 0;
  for (const name of termNames) termSums[name] = 0;
  for (let i = 0; i <= t; i++) {
    returnSoFar += steps[i].reward;
    for (const name of termNames) termSums[name] += steps[i].terms?.[name] ?? 0;
  }
  for (const name of termNames) terms[name] = step.terms?.[name] ?? Number.NaN;
  return {
    t,
    obs,
    action: describeAction(header, step.action),
    probs: step.probs,
    value: step.value,
    reward: step.reward,
    envReward: step.env_reward,
    terms,
    termSums,
    returnSoFar,
    terminated: step.terminated,
    truncated: step.truncated,
  };
}

function describeAction(header: RolloutHeader | undefined, action: RolloutStep['action']): string {
  if (Array.isArray(action)) return action.length === 0 ? '–' : `[${action.map(formatValue).join(', ')}]`;
  const name = actionName(header?.env, action);
  return name ? `${action} (${name})` : String(action);
}

export class StepView {
  readonly element = h('div', { class: 'step-view', attrs: { 'aria-label': 'This step' } });

  render(facts: StepFacts | undefined, header: RolloutHeader | undefined): void {
    if (!facts) {
      replaceChildren(this.element);
      return;
    }
    const flags = h(
      'p',
      { class: 'flags' },
      facts.terminated ? h('span', { class: 'flag terminated', text: 'terminated' }) : null,
      facts.truncated ? h('span', { class: 'flag truncated', text: 'truncated' }) : null,
      !facts.terminated && !facts.truncated ? h('span', { class: 'flag running', text: 'not done' }) : null,
    );
    replaceChildren(
      this.element,
      section('Observation', table(['field', 'value'], Object.entries(facts.obs).map(([k, v]) => [k, formatValue(v)]), 'obs')),
      section(
        'Action',
        h('p', { class: 'action', attrs: { 'data-action': facts.action } }, facts.action),
        facts.probs ? probabilities(facts.probs, header) : null,
        facts.value !== undefined ? h('p', {}, 'value estimate ', h('strong', { text: formatValue(facts.value) })) : null,
      ),
      section(
        'Reward',
        table(
          ['', 'this step', 'episode so far'],
          [
            ['reward (trained on)', formatValue(facts.reward), formatValue(facts.returnSoFar)],
            ...(facts.envReward !== facts.reward ? [['env reward', formatValue(facts.envReward), '']] : []),
            ...Object.keys(facts.terms).map((name) => [`term: ${name}`, formatValue(facts.terms[name]), formatValue(facts.termSums[name])]),
          ],
          'rewards',
        ),
      ),
      section('Done', flags),
    );
  }
}

function section(title: string, ...children: (Node | null)[]): HTMLElement {
  return h('section', { class: 'step-section' }, h('h3', { text: title }), ...children);
}

function table(head: string[], rows: string[][], name: string): HTMLElement {
  return h(
    'table',
    { attrs: { 'data-table': name } },
    h('thead', {}, h('tr', {}, ...head.map((c, i) => h('th', { class: i > 0 ? 'num' : '', text: c, attrs: { scope: 'col' } })))),
    h(
      'tbody',
      {},
      ...rows.map((r) => h('tr', {}, ...r.map((c, i) => (i === 0 ? h('th', { text: c, attrs: { scope: 'row' } }) : h('td', { class: 'num', text: c }))))),
    ),
  );
}

function probabilities(probs: number[], header: RolloutHeader | undefined): HTMLElement {
  return h(
    'ul',
    { class: 'probs', attrs: { 'aria-label': 'action probabilities' } },
    ...probs.map((p, i) => {
      const bar = h('span', { class: 'bar' });
      bar.style.width = `${Math.max(0, Math.min(1, p)) * 100}%`;
      const name = actionName(header?.env, i);
      return h('li', {}, h('span', { class: 'prob-label', text: name ? `${i} ${name}` : String(i) }), h('span', { class: 'bar-track' }, bar), h('span', { class: 'num', text: `${(p * 100).toFixed(1)}%` }));
    }),
  );
}
