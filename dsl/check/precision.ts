// An experiment's `precision: fp16` (docs/gpu.md#precision): it lowers the gradient steps of
// language models (transformer, pretrained), so another policy is an error; on `device: cpu` it
// runs, but onnxruntime's CPU provider computes float16 products in float32 with casts around
// them (no x86 float16 kernel), slower than fp32 and no less memory: a warning. Reported where
// this experiment states precision, else left to the base that does.
import { FP16_ON_CPU } from '../schema/declarations.js';
import type { DeclSymbol } from '../semantics/model.js';
import type { CheckContext } from './context.js';

/** Policies whose gradient steps precision fp16 lowers (runtime/policies: LANGUAGE_MODEL builders). */
const LOWERED_POLICIES = ['transformer', 'pretrained'];

export function checkPrecision(ctx: CheckContext, symbol: DeclSymbol): void {
  const props = ctx.model.effective(symbol).properties;
  const precision = props.get('precision');
  const value = precision?.node.value;
  if (!precision || precision.owner !== symbol || value?.kind !== 'Name' || value.parts[0]?.text !== 'fp16') return;
  const target = ctx.model.referencedTarget(symbol, 'policy');
  const policy = target ? (target.kind === 'builtin' ? target.spec : ctx.model.rootBuiltin(target.symbol)) : undefined;
  if (policy?.declKind === 'policy' && !LOWERED_POLICIES.includes(policy.name)) {
    ctx.accept('error', 'conflicting-properties',
      `precision fp16 lowers the gradient steps of transformer and pretrained policies; this experiment's policy is ${policy.name}, whose products are too small to gain from float16: remove precision`,
      value.range);
    return;
  }
  const device = props.get('device')?.node.value;
  if (device?.kind === 'Name' && device.parts[0]?.text === 'cpu') {
    ctx.accept('warning', 'suspicious-value',
      `precision fp16 on device cpu runs, but ${FP16_ON_CPU}. Use device webgpu or cuda (or auto), or remove precision`,
      value.range);
  }
}
