// Checks of pretrained language models (`policy Base = pretrained("./models/Qwen3-0.6B")`): the
// base's call and folder (there, with config.json rlx builds, a tokenizer and weights), the
// LoRA targets against the model's family, the chat template, and, in an experiment, the
// pairing with the env and algorithm and the memory the run will need.
import { closestNames, didYouMean } from '../diagnostics.js';
import { formatBytes, describeMemory } from '../../hf/memory.js';
import { linearModules } from '../../hf/lora.js';
import { algorithmSpec, LORA_TARGETS, type PolicySpec } from '../schema/index.js';
import type * as A from '../syntax/ast.js';
import type { DeclSymbol, Target } from '../semantics/model.js';
import type { CheckContext } from './context.js';
import { experimentMemory, pretrainedModel, TEXT_LEARNERS } from './pretrained-memory.js';

/** How to get a model folder, for messages. */
export const DOWNLOAD_HINT = 'a model folder holds config.json, tokenizer.json and model.safetensors; download one on a machine with network, '
  + 'e.g. `hf download Qwen/Qwen3-0.6B --local-dir ./models/Qwen3-0.6B`, and copy the folder here (docs/pretrained.md)';

/** The built-in called with a folder that a base names (`pretrained`), if it is one. */
function folderSpec(ctx: CheckContext, base: A.BaseRef): PolicySpec | undefined {
  const parts = base.name.parts;
  if (parts.length !== 1) return undefined;
  const target = ctx.model.lookup(ctx.unit, parts[0].text);
  return target?.kind === 'builtin' && target.spec.declKind === 'policy' && target.spec.folder ? target.spec : undefined;
}

/**
 * A base that names `pretrained`: only policies have one, it takes the folder in quotes, and the
 * folder must hold a model rlx builds. Returns false when the base is not such a call.
 */
export function checkFolderBase(ctx: CheckContext, symbol: DeclSymbol): boolean {
  const base = symbol.decl.base;
  const spec = base && folderSpec(ctx, base);
  if (!base || !spec) return false;
  const name = base.name.parts[0];
  const example = `policy ${symbol.decl.declKind === 'policy' ? symbol.decl.name?.text ?? 'Base' : 'Base'} = ${spec.name}("./models/Qwen3-0.6B")`;
  if (symbol.decl.declKind !== 'policy') {
    ctx.accept('error', 'invalid-base', `only policies can be pretrained models; write \`${example}\` and use it as an experiment's policy`, base.range);
    return true;
  }
  ctx.model.resolve(ctx.unit, name); // for navigation: the name refers to the built-in
  const arg = base.args?.[0];
  if (base.args === undefined) {
    ctx.accept('error', 'wrong-arguments', `${spec.name} takes the model folder: \`${example}\``, name.range);
  } else if (base.args.length !== 1 || arg?.name || arg?.value?.kind !== 'String') {
    ctx.accept('error', 'wrong-arguments', `${spec.name} takes one folder path in quotes: ${spec.name}("./models/Qwen3-0.6B")`, base.range);
  } else {
    checkModelFolder(ctx, symbol, arg.value.range);
  }
  return true;
}

/** The folder is there and holds a model rlx builds; reported at the path. */
function checkModelFolder(ctx: CheckContext, symbol: DeclSymbol, at: A.Range): void {
  const folder = ctx.model.modelFolder(symbol);
  if (!folder) return;
  const { read, written, dir } = folder;
  switch (read.kind) {
    case 'missing':
      ctx.accept('error', 'model-not-found', `cannot find the model folder '${written}' (looked for ${dir}); pretrained("...") paths are relative to this file. ${capital(DOWNLOAD_HINT)}`, at);
      break;
    case 'not-a-folder':
      ctx.accept('error', 'model-not-found', `'${written}' is a file; pretrained("...") names a model folder: ${DOWNLOAD_HINT}`, at);
      break;
    case 'invalid-config':
      ctx.accept('error', 'invalid-model', read.message, at);
      break;
    case 'incomplete':
      ctx.accept('error', 'invalid-model', `the model folder '${written}' has no ${read.missing.join(' and no ')}; ${DOWNLOAD_HINT}`, at);
      break;
    case 'model': {
      const problem = ctx.model.modelFiles?.(dir, read.config).problem;
      if (problem) ctx.accept('error', 'invalid-model', problem, at);
      break;
    }
  }
}

function capital(text: string): string {
  return text[0].toUpperCase() + text.slice(1);
}

/** A pretrained policy's own body: LoRA targets its model has, a chat template that uses the prompt. */
export function checkPretrainedPolicy(ctx: CheckContext, symbol: DeclSymbol): void {
  const found = pretrainedModel(ctx.model, symbol);
  for (const member of symbol.decl.body?.members ?? []) {
    if (member.kind !== 'Block') continue;
    for (const inner of member.body.members) {
      if (inner.kind !== 'Property' || inner.path.length !== 1) continue;
      const key = inner.path[0].text;
      if (member.name.text === 'lora' && key === 'targets' && found) checkTargets(ctx, inner.value, found.config);
      if (member.name.text === 'lora' && key === 'base_dtype' && inner.value?.kind === 'Name' && inner.value.parts.map((p) => p.text).join('.') === 'float16' && found?.folder.read.kind === 'model' && found.folder.read.halfWidth === false) {
        ctx.accept('error', 'invalid-model', `base_dtype float16 keeps the base as its checkpoint's float16 or bf16 values, but ${found.folder.written}'s weights are stored in float32; use float32, or auto`, inner.value.range);
      }
      if (member.name.text === 'chat' && key === 'user' && inner.value?.kind === 'String' && !inner.value.value.includes('{prompt}')) {
        ctx.accept('warning', 'suspicious-value', 'chat.user has no {prompt}, so the task\'s prompt never reaches the model; write it where the prompt goes, e.g. "Solve: {prompt}"', inner.value.range);
      }
      if (member.name.text === 'chat' && key !== 'user' && key !== 'system' && found?.folder.read.kind === 'model') {
        // A template variable: one the template never reads (a misspelt enable_thinking) would change nothing, unseen.
        const reads = ctx.model.modelFiles?.(found.folder.dir, found.config).chatReads;
        if (reads && !reads(key)) ctx.accept('warning', 'suspicious-value', `chat.${key}: the model's chat template never reads '${key}', so it changes nothing; check the name against the template's variables`, inner.path[0].range);
      }
    }
  }
}

function checkTargets(ctx: CheckContext, value: A.Expression | undefined, config: Parameters<typeof linearModules>[0]): void {
  if (value?.kind !== 'List') return;
  const known = [...new Set(linearModules(config).map((m) => m.module))];
  const all = new Set(LORA_TARGETS.map((o) => o.name));
  for (const item of value.items) {
    if (item.kind !== 'Name' || item.parts.length !== 1) continue;
    const target = item.parts[0].text;
    // A name no family has is reported by the type check (did you mean ...?); here, one this family lacks.
    if (known.includes(target) || !all.has(target)) continue;
    const close = closestNames(target, known);
    ctx.accept('error', 'unknown-name', `a ${config.family} model has no layer '${target}'; its linear layers are ${known.join(', ')}${didYouMean(target, close)}`, item.range,
      { fixes: close.map((c) => ({ title: `Change to '${c}'`, edits: [{ range: item.range, newText: c }] })) });
  }
}

/**
 * An experiment with a pretrained policy: the policy must name its folder, the env should be a
 * text env, the learners text learners, and the estimated memory should fit the machine.
 */
export function checkPretrainedExperiment(ctx: CheckContext, symbol: DeclSymbol): void {
  const { model } = ctx;
  const effective = model.effective(symbol);
  if (effective.cyclic) return;
  const policyProp = effective.properties.get('policy');
  const policy = model.referencedTarget(symbol, 'policy');
  if (!policyProp || !policy) return;
  const own = (owner: DeclSymbol, range: A.Range | undefined) => (owner === symbol ? range : undefined);
  const policyAt = own(policyProp.owner, policyProp.node.value?.range);
  if (policy.kind === 'builtin') {
    if (policy.spec.declKind === 'policy' && policy.spec.folder && policyAt) {
      ctx.accept('error', 'type-mismatch', `${policy.spec.name} needs its model folder: declare \`policy Base = ${policy.spec.name}("./models/Qwen3-0.6B")\` and write \`policy: Base\``, policyAt);
    }
    return;
  }
  if (!model.modelFolder(policy.symbol)) return;
  const label = `policy ${policy.symbol.name} is a pretrained language model`;

  const envProp = effective.properties.get('env');
  const env = model.envSpec(model.referencedTarget(symbol, 'env'));
  if (envProp && env && env.action !== 'text') {
    const at = policyAt ?? own(envProp.owner, envProp.node.value?.range);
    if (at) ctx.accept('warning', 'incompatible-env', `${label}, which only writes text, and ${env.name} has ${env.action} actions; pair it with a text env (TextTask, GuessNumber or a text module)`, at);
  }

  const warnLearner = (target: Target | undefined, at: A.Range | undefined) => {
    const spec = target?.kind === 'builtin' ? algorithmSpec(target.spec.name) : target ? model.rootBuiltin(target.symbol) : undefined;
    if (at && spec?.declKind === 'algorithm' && !TEXT_LEARNERS.includes(spec.name)) {
      ctx.accept('warning', 'incompatible-env', `${label}; ${spec.name} does not train language models: use ${TEXT_LEARNERS.join(', ')}`, at);
    }
  };
  const algProp = effective.properties.get('algorithm');
  if (algProp) warnLearner(model.referencedTarget(symbol, 'algorithm'), own(algProp.owner, algProp.node.value?.range));
  for (const stage of effective.named.values()) {
    const name = stage.node.memberKind === 'stage' ? stage.node.base?.name.parts[0] : undefined;
    if (name) warnLearner(model.lookup(stage.owner.unit, name.text), own(stage.owner, name.range));
  }

  const free = ctx.freeMemory?.();
  const memory = experimentMemory(model, symbol, free);
  if (memory && free !== undefined && memory.estimate.total > free) {
    const at = policyAt ?? symbol.decl.name?.range;
    if (at) {
      ctx.accept('warning', 'exceeds-memory',
        `this run needs about ${formatBytes(memory.estimate.total)}, more than the ${formatBytes(free)} of memory free on this machine (\`rlx train\` will refuse it): ${describeMemory(memory.estimate)}; `
          + `estimated for ${memory.basis}. ${memory.lora ? 'Use' : 'Use LoRA (lora { rank: 16 }),'} fewer prompts or completions per update, or a smaller model`, at);
    }
  }
}
