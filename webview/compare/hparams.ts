// The hyperparameter table of a comparison: each run's plan flattened to `name: value` text,
// the names whose values differ between the runs, and the groups of runs that differ only in
// their seed (the curves a mean and band are drawn over).

export type Flat = Record<string, string>;

interface PlanLike {
  experiment?: string;
  env?: { kind?: string; params?: Record<string, unknown> };
  policy?: { kind?: string; params?: Record<string, unknown> };
  stages?: { name?: string; algorithm?: { kind?: string; params?: Record<string, unknown> }; budget?: number | null }[];
  reward?: { name?: string; replace_env_reward?: boolean; terms?: { name?: string }[] } | null;
  envs?: number;
  device?: string;
  eval?: { every?: number; episodes?: number; deterministic?: boolean } | null;
  stop?: unknown;
  curriculum?: { param?: string; from?: number; to?: number; advance?: unknown } | null;
}

/** A plan value as a person reads it: schedules as `linear(0.00025 → 0)`, lists joined. */
export function formatPlanValue(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'number') return String(Number(value.toPrecision(6)));
  if (typeof value === 'string' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(formatPlanValue).join(', ')}]`;
  const v = value as Record<string, unknown>;
  if (typeof v.schedule === 'string') {
    if (v.schedule === 'constant') return formatPlanValue(v.value);
    if (v.schedule === 'warmup') return `warmup(${formatPlanValue(v.steps)}, then ${formatPlanValue(v.then)})`;
    const over = v.over !== undefined && v.over !== 1 ? `, over ${formatPlanValue(v.over)}` : '';
    return `${v.schedule}(${formatPlanValue(v.from)} → ${formatPlanValue(v.to)}${over})`;
  }
  if ('const' in v || 'ref' in v || 'op' in v || 'call' in v || 'list' in v) return formatExpr(v);
  return `{ ${Object.entries(v)
    .map(([k, x]) => `${k}: ${formatPlanValue(x)}`)
    .join(', ')} }`;
}

/** A plan expression (stop conditions, curriculum advances) back in the language's syntax. */
export function formatExpr(expr: unknown): string {
  const e = expr as Record<string, unknown>;
  if (e === null || typeof e !== 'object') return String(expr);
  if ('const' in e) return formatPlanValue(e.const);
  if ('ref' in e) return String(e.ref);
  if ('list' in e) return `[${(e.list as unknown[]).map(formatExpr).join(', ')}]`;
  if ('call' in e) return `${String(e.call)}(${(e.args as unknown[]).map(formatExpr).join(', ')})`;
  const args = (e.args as unknown[]) ?? [];
  if (e.op === 'neg') return `-${formatExpr(args[0])}`;
  if (e.op === 'not') return `not ${formatExpr(args[0])}`;
  return `${formatExpr(args[0])} ${String(e.op)} ${formatExpr(args[1])}`;
}

/** A plan as `name: value` pairs (the seed is the run's, not the plan's list). */
export function flattenPlan(plan: unknown): Flat {
  const p = (plan ?? {}) as PlanLike;
  const flat: Flat = {};
  const put = (key: string, value: unknown) => {
    if (value !== undefined) flat[key] = formatPlanValue(value);
  };
  put('env', p.env?.kind);
  for (const [k, v] of Object.entries(p.env?.params ?? {})) put(`env.${k}`, v);
  put('envs', p.envs);
  put('policy', p.policy?.kind);
  for (const [k, v] of Object.entries(p.policy?.params ?? {})) put(`policy.${k}`, v);
  const stages = p.stages ?? [];
  for (const stage of stages) {
    // One stage (the usual case) needs no stage name in front of its parameters.
    const prefix = stages.length === 1 ? '' : `${stage.name ?? 'stage'}.`;
    put(`${prefix}algorithm`, stage.algorithm?.kind);
    for (const [k, v] of Object.entries(stage.algorithm?.params ?? {})) put(`${prefix}algorithm.${k}`, v);
    put(`${prefix}budget`, stage.budget);
  }
  if (p.reward) {
    put('reward', p.reward.name);
    put('reward.terms', (p.reward.terms ?? []).map((t) => t.name));
    put('reward.replace_env_reward', p.reward.replace_env_reward);
  } else if (p.reward === null) put('reward', 'none');
  put('device', p.device);
  if (p.eval) for (const [k, v] of Object.entries(p.eval)) put(`eval.${k}`, v);
  if (p.stop !== undefined) put('stop', p.stop === null ? 'none' : formatExpr(p.stop));
  if (p.curriculum) put('curriculum', `${p.curriculum.param} ${formatPlanValue(p.curriculum.from)} → ${formatPlanValue(p.curriculum.to)} when ${formatExpr(p.curriculum.advance)}`);
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
    const distinct = table.differing.map((k) => `${shortName(k)} ${flat[k] ?? '–'}`);
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

/** `algorithm.learning_rate` reads as `learning_rate` in labels. */
export function shortName(key: string): string {
  return key.replace(/^algorithm\./, '');
}
