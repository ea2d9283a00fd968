// A character-level transformer on a TextTask's dataset: what rlx train refuses before it trains
// (runtime/text/config.ts, runtime/policies/transformer/layout.ts checkFits), said by the checker
// from the same rows, so that a spec that checks clean is not refused by train:
//
// - a target longer than the env's max_tokens (in characters: code points), which no completion
//   could reach: an error at max_tokens where it is written, else at the dataset's path;
// - the longest prompt (plus <bos>) and max_tokens (plus <eos>) past the policy's context: an
//   error at the policy's context where it is written, else at the experiment's `policy:`.
//
// A pretrained policy counts its own tokens, so neither applies to it (the trainer counts a
// dataset's target tokens once it has read the tokenizer); a generated task's lengths are the
// runtime's (runtime/text/generated.ts) and are not restated here.
import { codePointLength } from '../../shared/code-points.js';
import type * as A from '../syntax/ast.js';
import type { DeclSymbol, Effective } from '../semantics/model.js';
import { constantNumber } from '../semantics/constant.js';
import type { CheckContext } from './context.js';
import { taskRows } from './dataset-columns.js';

export function checkCharacterFit(ctx: CheckContext, experiment: DeclSymbol): void {
  const { model } = ctx;
  const policy = model.referencedTarget(experiment, 'policy');
  const policyRoot = policy?.kind === 'builtin' ? policy.spec : policy?.kind === 'decl' ? model.rootBuiltin(policy.symbol) : undefined;
  if (policyRoot?.name !== 'transformer') return;
  const envTarget = model.referencedTarget(experiment, 'env');
  if (envTarget?.kind !== 'decl') return;
  const rows = taskRows(model, envTarget);
  if (rows?.kind !== 'dataset' || rows.examples.length === 0) return;
  const envProps = model.effective(envTarget.symbol).properties;
  const maxTokensStated = stated(envProps.get('max_tokens'));
  const maxTokens = maxTokensStated?.value ?? numberDefault(model.rootBuiltin(envTarget.symbol)?.params.find((p) => p.name === 'max_tokens')?.default);
  if (maxTokens === undefined) return;
  const longestTarget = Math.max(...rows.examples.map((e) => codePointLength(e.target)));
  const longestPrompt = Math.max(...rows.examples.map((e) => codePointLength(e.prompt)));
  const envName = envTarget.symbol.name;

  if (longestTarget > maxTokens) {
    const message = `${envName}'s max_tokens is ${maxTokens}${maxTokensStated ? '' : ' (the default)'}, but ${rows.written} has targets of up to ${longestTarget} characters, which no completion could reach (experiment ${experiment.name}); raise max_tokens to at least ${longestTarget}`;
    const at = maxTokensStated ?? datasetLiteral(envProps.get('task'));
    if (at) ctx.forUnit(at.unit).accept('error', 'out-of-range', message, at.range);
  }

  const contextStated = policy?.kind === 'decl' ? stated(model.effective(policy.symbol).properties.get('context')) : undefined;
  const context = contextStated?.value ?? numberDefault(policyRoot.params.find((p) => p.name === 'context')?.default);
  const needed = longestPrompt + 1 + maxTokens + 1 - 1;
  if (context !== undefined && needed > context) {
    const name = policy?.kind === 'decl' ? policy.symbol.name : 'transformer';
    const message = `policy ${name}: prompts of up to ${longestPrompt} characters (plus <bos>) in ${rows.written} and completions of up to ${maxTokens} (${envName}'s max_tokens, plus <eos>) need a context of ${needed} tokens, but the policy's context is ${context}${contextStated ? '' : ' (the default)'} (experiment ${experiment.name}); raise \`context\` to at least ${needed}`;
    const policyProperty = model.effective(experiment).properties.get('policy');
    const at = contextStated ?? (policyProperty?.node.value ? { range: policyProperty.node.value.range, unit: policyProperty.owner.unit } : undefined);
    if (at) ctx.forUnit(at.unit).accept('error', 'out-of-range', message, at.range);
  }
}

interface Place {
  readonly range: A.Range;
  readonly unit: DeclSymbol['unit'];
}

function stated(property: Effective<A.Property> | undefined): (Place & { value: number }) | undefined {
  const value = constantNumber(property?.node.value);
  return property?.node.value && value !== undefined ? { value, range: property.node.value.range, unit: property.owner.unit } : undefined;
}

/** The path literal of `task: dataset("...")`. */
function datasetLiteral(task: Effective<A.Property> | undefined): Place | undefined {
  const value = task?.node.value;
  const arg = value?.kind === 'Call' ? value.args[0]?.value : undefined;
  return task && arg ? { range: arg.range, unit: task.owner.unit } : undefined;
}

function numberDefault(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}
