// A text learner's `max_new_tokens` above its env's `max_tokens`: the trainer samples at most
// max_tokens (runtime/text/env.ts clamps it), so the stated length silently does nothing. Warned
// at the stated value, once per experiment that pairs the two, in the file that states it.
//
// With a pretrained policy, a completion that cannot fit the model's context beside a prompt of
// even one token is an error at the length that makes it so: the env's max_tokens (evaluation
// samples that many) or a learner's max_new_tokens (training samples min(it, max_tokens)).
// Positions past the context are ones the model never saw: GPT-2 has no embedding for them,
// rotary models sample there silently; transformers refuses such a generation too.
import { familyDefinition } from '../../hf/families/index.js';
import type * as A from '../syntax/ast.js';
import type { DeclSymbol, Effective, Target } from '../semantics/model.js';
import { algorithmSpec, type PlanValue } from '../schema/index.js';
import { constantNumber } from '../semantics/constant.js';
import type { CheckContext } from './context.js';
import { pretrainedModel } from './pretrained-memory.js';

/** A stated number: its value, where it is written, and in which file. */
interface Stated {
  value: number;
  range: A.Range;
  unit: DeclSymbol['unit'];
}

export function checkCompletionLength(ctx: CheckContext, experiment: DeclSymbol, stages: Effective<A.NamedMember>[]): void {
  const { model } = ctx;
  const envTarget = model.referencedTarget(experiment, 'env');
  const env = model.envSpec(envTarget);
  const maxTokensParam = env?.params.find((p) => p.name === 'max_tokens');
  if (!envTarget || !env || !maxTokensParam) return;
  const statedMaxTokens = envTarget.kind === 'decl' ? statedNumber(model.effective(envTarget.symbol).properties.get('max_tokens')) : undefined;
  const maxTokens = statedMaxTokens?.value;
  const limit = maxTokens ?? numberDefault(maxTokensParam.default);
  if (limit === undefined) return;
  const envName = envTarget.kind === 'builtin' ? envTarget.spec.name : envTarget.symbol.name;

  const lengths: Stated[] = [];
  // Stated max_prompt_length values, with the completion length of the same learner.
  const promptLimits: { prompt: Stated; completion: number }[] = [];
  const fromAlgorithm = (target: Target | undefined) => {
    if (target?.kind !== 'decl') return; // a built-in's default is not a choice the user made
    const properties = model.effective(target.symbol).properties;
    const stated = statedNumber(properties.get('max_new_tokens'));
    if (stated) lengths.push(stated);
    const prompt = statedNumber(properties.get('max_prompt_length'));
    const fallback = numberDefault(model.rootBuiltin(target.symbol)?.params.find((p) => p.name === 'max_new_tokens')?.default);
    const completion = Math.min(limit, stated?.value ?? fallback ?? limit);
    if (prompt) promptLimits.push({ prompt, completion });
  };
  // A learner left at max_new_tokens' default below the env's stated max_tokens: its completions
  // are cut short of what the env allows (and of what an SFT stage trained on), which reads as a
  // reward stuck at 0 rather than as a setting. Warned at the learner's name.
  const shortDefaults: { stage: string; value: number; range: A.Range; unit: DeclSymbol['unit']; fix?: string }[] = [];
  const defaultedLength = (target: Target | undefined): number | undefined => {
    if (target?.kind === 'builtin') return numberDefault(algorithmSpec(target.spec.name)?.params.find((p) => p.name === 'max_new_tokens')?.default);
    if (target?.kind !== 'decl' || model.effective(target.symbol).properties.has('max_new_tokens')) return undefined;
    return numberDefault(model.rootBuiltin(target.symbol)?.params.find((p) => p.name === 'max_new_tokens')?.default);
  };
  const algorithm = model.referencedTarget(experiment, 'algorithm');
  fromAlgorithm(algorithm);
  const algorithmProperty = model.effective(experiment).properties.get('algorithm');
  const experimentDefault = stages.length === 0 ? defaultedLength(algorithm) : undefined;
  if (experimentDefault !== undefined && algorithmProperty?.node.value && statedMaxTokens && experimentDefault < statedMaxTokens.value) {
    const builtinName = algorithm?.kind === 'builtin' ? algorithm.spec.name : undefined;
    shortDefaults.push({
      stage: `algorithm ${algorithm?.kind === 'decl' ? algorithm.symbol.name : builtinName ?? ''}`.trim(), value: experimentDefault, range: algorithmProperty.node.value.range, unit: algorithmProperty.owner.unit,
      ...(builtinName ? { fix: `declare it with one: \`algorithm Long = ${builtinName} { max_new_tokens: ${statedMaxTokens.value} }\`` } : {}),
    });
  }
  for (const stage of stages) {
    const own = stage.node.body?.members.find((m): m is A.Property => m.kind === 'Property' && m.path.length === 1 && m.path[0].text === 'max_new_tokens');
    const value = own ? constantNumber(own.value) : undefined;
    if (own?.value && value !== undefined) {
      lengths.push({ value, range: own.value.range, unit: stage.owner.unit });
      continue;
    }
    const baseName = stage.node.base?.name.parts[0];
    const target = baseName ? model.lookup(stage.owner.unit, baseName.text) : undefined;
    if (target?.kind === 'builtin' && !algorithmSpec(target.spec.name)) continue;
    const defaulted = own ? undefined : defaultedLength(target);
    if (baseName && defaulted !== undefined && statedMaxTokens && defaulted < statedMaxTokens.value) {
      shortDefaults.push({ stage: `stage ${stage.node.name?.text ?? baseName.text}`, value: defaulted, range: baseName.range, unit: stage.owner.unit });
    }
    fromAlgorithm(target);
  }
  for (const short of shortDefaults) {
    ctx.forUnit(short.unit).accept('warning', 'suspicious-value',
      `${short.stage} samples at most ${short.value} tokens (max_new_tokens' default), but ${envName}'s max_tokens is ${limit} (experiment ${experiment.name}): its completions are cut at ${short.value} tokens; ${short.fix ?? `set max_new_tokens (up to ${limit}) on it`}`,
      short.range);
  }
  const context = policyContext(ctx, experiment);
  if (context) {
    const tooLong = (value: number, setting: string) =>
      `${setting} is ${value}, but policy ${context.policy}'s model has a context of ${context.tokens} tokens (${context.file}): the prompt and the completion must fit in it together (experiment ${experiment.name}); `
      + `give at most ${context.tokens - 1} tokens less the prompt's, or use a model with a longer context`;
    if (statedMaxTokens && statedMaxTokens.value + 1 > context.tokens) {
      ctx.forUnit(statedMaxTokens.unit).accept('error', 'out-of-range', tooLong(statedMaxTokens.value, `${envName}'s max_tokens`), statedMaxTokens.range);
    }
    for (const length of lengths) {
      if (length.value <= limit && length.value + 1 > context.tokens) ctx.forUnit(length.unit).accept('error', 'out-of-range', tooLong(length.value, 'max_new_tokens'), length.range);
    }
    // A prompt cut to max_prompt_length may still be that long: warned, as its prompts may all be shorter.
    for (const { prompt, completion } of promptLimits) {
      if (completion + 1 > context.tokens || prompt.value + completion <= context.tokens) continue;
      ctx.forUnit(prompt.unit).accept('warning', 'suspicious-value',
        `max_prompt_length ${prompt.value} and completions of ${completion} tokens make rows of up to ${prompt.value + completion} tokens, past policy ${context.policy}'s context of ${context.tokens} (${context.file}); `
        + `a prompt that long would stop the run: lower max_prompt_length to at most ${context.tokens - completion}`, prompt.range);
    }
  }
  for (const length of lengths) {
    if (length.value <= limit) continue;
    ctx.forUnit(length.unit).accept('warning', 'suspicious-value',
      `max_new_tokens is ${length.value}, but ${envName}'s max_tokens is ${limit} (experiment ${experiment.name}): completions stop at ${limit} tokens; raise max_tokens on the env or lower max_new_tokens`,
      length.range);
  }
}

/** The context of the experiment's pretrained policy, where its config.json was read. */
function policyContext(ctx: CheckContext, experiment: DeclSymbol): { tokens: number; policy: string; file: string } | undefined {
  const policy = ctx.model.referencedTarget(experiment, 'policy');
  if (policy?.kind !== 'decl') return undefined;
  const read = pretrainedModel(ctx.model, policy.symbol);
  if (!read) return undefined;
  const key = familyDefinition(read.config.family)?.contextField ?? 'max_position_embeddings';
  return { tokens: read.config.context, policy: policy.symbol.name, file: `${key} in ${read.folder.written}/config.json` };
}

function statedNumber(stated: Effective<A.Property> | undefined): Stated | undefined {
  const value = constantNumber(stated?.node.value);
  return stated?.node.value && value !== undefined ? { value, range: stated.node.value.range, unit: stated.owner.unit } : undefined;
}

function numberDefault(value: PlanValue | undefined): number | undefined {
  return typeof value === 'number' ? value : undefined;
}
