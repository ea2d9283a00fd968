// The checker on an experiment's `precision` (dsl/check/precision.ts): fp16 with a transformer is
// accepted on a GPU or auto; with an mlp it is refused at the value; on device cpu it is warned at.
import { test } from 'node:test';
import { expectDiagnostics } from '../../helpers/source.js';

const TEXT = 'env Arith = TextTask { task: addition(digits: 2) }\npolicy Tiny = transformer { layers: 2 }\nalgorithm G = GRPO { }\n';
const NUMBERS = 'env Pole = CartPole { }\npolicy Net = mlp { }\nalgorithm P = PPO { }\n';

test('precision fp16 with a transformer on webgpu or auto: no diagnostic', () => {
  expectDiagnostics(`${TEXT}experiment E { env: Arith, policy: Tiny, algorithm: G, budget: 1k, device: webgpu, precision: fp16 }\n`, []);
  expectDiagnostics(`${TEXT}experiment E { env: Arith, policy: Tiny, algorithm: G, budget: 1k, precision: fp16 }\n`, []);
});

test('precision fp16 with an mlp: an error at the value naming the policy', () => {
  expectDiagnostics(`${NUMBERS}experiment E { env: Pole, policy: Net, algorithm: P, budget: 1k, precision: ⟦fp16⟧ }\n`, [
    { code: 'conflicting-properties', message: /^precision fp16 lowers the gradient steps of transformer and pretrained policies; this experiment's policy is mlp/ },
  ]);
});

test('precision fp16 on device cpu: a warning that it runs slower there', () => {
  expectDiagnostics(`${TEXT}experiment E { env: Arith, policy: Tiny, algorithm: G, budget: 1k, device: cpu, precision: ⟦fp16⟧ }\n`, [
    { code: 'suspicious-value', severity: 'warning', message: /^precision fp16 on device cpu runs, but onnxruntime's CPU provider computes float16 products in float32/ },
  ]);
});

test('an unknown precision: the schema refuses it, listing fp32 and fp16', () => {
  expectDiagnostics(`${TEXT}experiment E { env: Arith, policy: Tiny, algorithm: G, budget: 1k, precision: ⟦bf16⟧ }\n`, [{ code: 'type-mismatch', message: /fp32.*fp16|fp16.*fp32/ }]);
});
