// The hyperparameter table of a comparison: each run's plan flattened to `name: value` text,
// the names whose values differ between the runs, and the groups of runs that differ only in
// their seed (the curves a mean and band are drawn over).

export type Flat = Record<string, string>;

/**
 * A plan value as a person reads it: schedules as `linear(0.00025 → 0)`, lists joined, calls
 * and options with parameters as written (`addition(digits: 2)`). Total: a shape it does not know (a newer plan, an edited
 * file) reads as its JSON, never as an exception that would blank the page.
 */
export function formatPlanValue(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'number') return String(Number(value.toPrecision(6)));
  if (typeof value === 'string' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(formatPlanValue).join(', ')}]`;
  if (typeof value !== 'object') return rawJson(value);
  const v = value as Record<string, unknown>;
  if (typeof v.schedule === 'string') return formatSchedule(v);
  if (isExpr(v)) return formatExpr(v);
  // An option with parameters (`task: addition(digits: 1)` is `{"kind":"addition","digits":1}` in a plan).
  if (typeof v.kind === 'string') {
    const args = Object.entries(v).filter(([k]) => k !== 'kind');
    return args.length === 0 ? v.kind : `${v.kind}(${args.map(([k, x]) => `${k}: ${formatPlanValue(x)}`).join(', ')})`;
  }
  return `{ ${Object.entries(v)
    .map(([k, x]) => `${k}: ${formatPlanValue(x)}`)
    .join(', ')} }`;
}

function formatSchedule(v: Record<string, unknown>): string {
  if (v.schedule === 'constant' && 'value' in v) return formatPlanValue(v.value);
  if (v.schedule === 'warmup' && 'steps' in v && 'then' in v) return `warmup(${formatPlanValue(v.steps)}, then ${formatPlanValue(v.then)})`;
  if ('from' in v && 'to' in v) {
    const over = v.over !== undefined && v.over !== 1 ? `, over ${formatPlanValue(v.over)}` : '';
    return `${v.schedule}(${formatPlanValue(v.from)} → ${formatPlanValue(v.to)}${over})`;
  }
  return rawJson(v);
}

function isExpr(v: Record<string, unknown>): boolean {
  return 'const' in v || 'ref' in v || 'op' in v || 'call' in v || 'list' in v;
}

/**
 * A plan expression (stop conditions, curriculum advances, a text task) back in the language's
 * syntax; the JSON of any part that is not one of the plan's expression shapes.
 */
export function formatExpr(expr: unknown): string {
  if (expr === null || typeof expr !== 'object' || Array.isArray(expr)) return formatPlanValue(expr);
  const e = expr as Record<string, unknown>;
  if ('const' in e) return formatPlanValue(e.const);
  if ('ref' in e) return typeof e.ref === 'string' ? e.ref : rawJson(e);
  if ('list' in e) return Array.isArray(e.list) ? `[${e.list.map(formatExpr).join(', ')}]` : rawJson(e);
  if ('call' in e) {
    if (typeof e.call !== 'string') return rawJson(e);
    // Positional arguments (a normalised expression) or named ones (a parameter's value, e.g. `task`).
    const args = Array.isArray(e.args)
      ? e.args.map(formatExpr)
      : e.args !== null && typeof e.args === 'object'
        ? Object.entries(e.args).map(([name, arg]) => `${name}: ${formatExpr(arg)}`)
        : e.args === undefined
          ? []
          : undefined;
    return args ? `${e.call}(${args.join(', ')})` : rawJson(e);
  }
  const args = Array.isArray(e.args) ? e.args : undefined;
  if (typeof e.op !== 'string' || !args) return rawJson(e);
  if ((e.op === 'neg' || e.op === 'not') && args.length === 1) return e.op === 'neg' ? `-${formatExpr(args[0])}` : `not ${formatExpr(args[0])}`;
  if (args.length === 2) return `${formatExpr(args[0])} ${e.op} ${formatExpr(args[1])}`;
  return rawJson(e);
}

/** What the page cannot read as a plan value, shown as it is in plan.json. */
function rawJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Plan fields the table leaves out on purpose: bookkeeping, and the seed list (a row shows its run's seed). */
const NOT_HYPERPARAMETERS = new Set(['rlx_plan', 'language_version', 'experiment', 'source', 'seeds', 'sweep']);
/** Plan fields read below; any other field (a newer plan's) is shown as raw JSON under its own name. */
const READ = new Set(['env', 'envs', 'policy', 'stages', 'reward', 'device', 'eval', 'stop', 'curriculum']);

/**
 * A plan as `name: value` pairs (the seed is the run's, not the plan's list). Whatever does not
 * have the shape this page knows is shown whole, as JSON under its field's name, so one odd plan
 * cannot take the comparison down.
 */
export function flattenPlan(plan: unknown): Flat {
  const flat: Flat = {};
  if (!isRecord(plan)) {
    if (plan !== undefined && plan !== null) flat.plan = rawJson(plan);
    return flat;
  }
  const put = (key: string, value: unknown) => {
    if (value !== undefined) flat[key] = formatPlanValue(value);
  };
  /** Reads one field with `read`; the field's JSON when it is not the shape `read` expects. */
  const field = (name: string, read: (value: unknown) => boolean) => {
    const value = plan[name];
    if (value === undefined) return;
    if (!read(value)) flat[name] = rawJson(value);
  };
  const component = (name: string) => (value: unknown) => {
    if (!isRecord(value) || (value.params !== undefined && !isRecord(value.params))) return false;
    put(name, value.kind);
    for (const [k, v] of Object.entries(value.params ?? {})) put(`${name}.${k}`, v);
    return true;
  };
  field('env', component('env'));
  put('envs', plan.envs);
  field('policy', component('policy'));
  field('stages', (stages) => {
    if (!Array.isArray(stages)) return false;
    stages.forEach((stage, i) => {
      // One stage (the usual case) needs no stage name in front of its parameters.
      const name = isRecord(stage) && typeof stage.name === 'string' ? stage.name : `stage${i + 1}`;
      const prefix = stages.length === 1 ? '' : `${name}.`;
      if (!isRecord(stage) || (stage.algorithm !== undefined && !component(`${prefix}algorithm`)(stage.algorithm))) {
        flat[`${prefix}stage`] = rawJson(stage);
        return;
      }
      put(`${prefix}budget`, stage.budget);
    });
    return true;
  });
  field('reward', (reward) => {
    if (reward === null) put('reward', 'none');
    else if (!isRecord(reward)) return false;
    else {
      put('reward', reward.name);
      put('reward.terms', Array.isArray(reward.terms) ? reward.terms.map((t) => (isRecord(t) && typeof t.name === 'string' ? t.name : rawJson(t))) : reward.terms);
      put('reward.replace_env_reward', reward.replace_env_reward);
    }
    return true;
  });
  put('device', plan.device);
  field('eval', (evaluation) => {
    if (evaluation === null) return true;
    if (!isRecord(evaluation)) return false;
    for (const [k, v] of Object.entries(evaluation)) put(`eval.${k}`, v);
    return true;
  });
  if (plan.stop !== undefined) put('stop', plan.stop === null ? 'none' : formatExpr(plan.stop));
  field('curriculum', (c) => {
    if (c === null) return true;
    if (!isRecord(c)) return false;
    flat.curriculum = `${formatPlanValue(c.param)} ${formatPlanValue(c.from)} → ${formatPlanValue(c.to)} when ${formatExpr(c.advance)}`;
    return true;
  });
  for (const [name, value] of Object.entries(plan)) {
    if (!READ.has(name) && !NOT_HYPERPARAMETERS.has(name)) flat[name] = rawJson(value);
  }
  return flat;
}

export interface HparamTable {
  /** Every name, in plan order. */
  keys: string[];
  /** The names whose values are not the same in every run. */
  differing: string[];
  values: Map<string, Flat>;
}

export function hparamTable(runs: { id: string; plan?: unknown }[]): HparamTable {
  const values = new Map<string, Flat>();
  const keys: string[] = [];
  const seen = new Set<string>();
  for (const run of runs) {
    const flat = flattenPlan(run.plan);
    values.set(run.id, flat);
    for (const key of Object.keys(flat)) {
      if (!seen.has(key)) {
        seen.add(key);
        keys.push(key);
      }
    }
  }
  const differing = keys.filter((key) => new Set(runs.map((r) => values.get(r.id)![key] ?? '–')).size > 1);
  return { keys, differing, values };
}

export interface RunGroup {
  /** What the group's runs share that others do not: `learning_rate 0.0003`, or the experiment. */
  label: string;
  runIds: string[];
}

/** Runs whose plans differ in nothing but the seed, in first-seen order. */
export function groupRuns(runs: { id: string; experiment: string; plan?: unknown }[], table: HparamTable): RunGroup[] {
  const groups = new Map<string, RunGroup>();
  for (const run of runs) {
    const flat = table.values.get(run.id) ?? {};
    const distinct = table.differing.map((k) => `${labelName(k)}=${compactValue(flat[k] ?? '–')}`);
    const key = `${run.experiment}\u0000${distinct.join('\u0000')}`;
    let group = groups.get(key);
    if (!group) {
      const experiments = new Set(runs.map((r) => r.experiment));
      const label = [experiments.size > 1 ? run.experiment : '', ...distinct].filter(Boolean).join(', ') || run.experiment;
      group = { label, runIds: [] };
      groups.set(key, group);
    }
    group.runIds.push(run.id);
  }
  return [...groups.values()];
}

/** A sweep member's varied values as a label (`lr=3e-4, epochs=4`), from its plan's sweep.values. */
export function sweepValuesLabel(values: Readonly<Record<string, unknown>>): string {
  return Object.entries(values)
    .filter(([key]) => key !== 'seed')
    .map(([key, value]) => `${labelName(key)}=${compactValue(formatPlanValue(value))}`)
    .join(', ');
}

/**
 * A sweep member's name as the Runs view and the chart write it: its varied values and its seed
 * (`lr=3e-4 · seed 1`); empty when it has neither.
 */
export function sweepMemberLabel(values: Readonly<Record<string, unknown>>, seed: number | undefined): string {
  return [sweepValuesLabel(values), seed === undefined ? '' : `seed ${seed}`].filter(Boolean).join(' · ');
}

/** Names a sweep's labels shorten further, as people write them (`lr=3e-4`). */
const LABEL_NAMES: Record<string, string> = { learning_rate: 'lr' };

function labelName(key: string): string {
  const short = shortName(key);
  return LABEL_NAMES[short] ?? short;
}

/** A value in a label: small numbers as `3e-4` (0.0003 hides its magnitude in zeros), the rest as shown in the table. */
export function compactValue(text: string): string {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n === 0 || Math.abs(n) >= 0.01) return text;
  const [mantissa, exponent] = n.toExponential().split('e');
  return `${String(Number(Number(mantissa).toPrecision(3)))}e${Number(exponent)}`;
}

/** `algorithm.learning_rate` reads as `learning_rate` in labels. */
export function shortName(key: string): string {
  return key.replace(/^algorithm\./, '');
}
