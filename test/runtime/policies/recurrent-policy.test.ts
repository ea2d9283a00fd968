// The recurrent actor-critic (runtime/policies/recurrent-policy.ts) computes the same numbers
// three ways: its acting pass outside onnxruntime step by step (the rollout's), its sequence
// graph (the update's) unrolled over the same steps with episode starts inside, and its
// exported one-step model fed its own next_state (rlx eval's). A start forgets the memory.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as ort from 'onnxruntime-node';
import { PolicyFactory, RECURRENT_ACTOR_CRITIC, ACTOR_CRITIC, flatPolicySpaces, type RecurrentActorCritic } from '../../../runtime/policies/index.js';
import { Graph, Session } from '../../../runtime/tensor/index.js';
import { Rng } from '../../../shared/random.js';
import { isInputError } from '../../../shared/input-error.js';

const [T, N, OBS, ACTIONS] = [5, 3, 2, 3];
/** Episode starts [T, N]: copy 1 starts a new one at step 2, copy 2 at steps 1 and 4. */
const STARTS = [0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1];

function recurrentPolicy(core: unknown, sharedTrunk = false): RecurrentActorCritic {
  const component = { name: 'P', kind: 'mlp', params: { hidden: [8], activation: 'tanh', shared_trunk: sharedTrunk, core } };
  return new PolicyFactory(component, flatPolicySpaces(OBS, { kind: 'discrete', n: ACTIONS }), new Rng(5)).networks(RECURRENT_ACTOR_CRITIC, 'PPO');
}

const obsAt = (() => {
  const rng = new Rng(9);
  return Float32Array.from({ length: T * N * OBS }, () => rng.uniformRange(-1, 1));
})();

/** Heads and values of every step, acting step by step from zero memory. */
function actingPass(policy: RecurrentActorCritic): { heads: Float32Array; values: Float32Array } {
  const state = new Float32Array(N * policy.stateWidth);
  const heads = new Float32Array(T * N * ACTIONS);
  const values = new Float32Array(T * N);
  for (let t = 0; t < T; t++) {
    policy.stepRows(obsAt.subarray(t * N * OBS, (t + 1) * N * OBS), N, state, STARTS.slice(t * N, (t + 1) * N), heads.subarray(t * N * ACTIONS), values.subarray(t * N));
  }
  return { heads, values };
}

const close = (a: ArrayLike<number>, b: ArrayLike<number>, what: string) => {
  assert.equal(a.length, b.length, what);
  for (let i = 0; i < a.length; i++) assert.ok(Math.abs(a[i]! - b[i]!) < 1e-4, `${what}[${i}]: ${a[i]} vs ${b[i]}`);
};

for (const [core, shared] of [[{ kind: 'gru', size: 4 }, false], [{ kind: 'lstm', size: 4 }, false], [{ kind: 'gru', size: 4 }, true]] as const) {
  describe(`a ${core.kind} core${shared ? ' on a shared trunk' : ''}`, () => {
    it('acts step by step as its sequence graph computes, starts included', async () => {
      const policy = recurrentPolicy(core, shared);
      const acting = actingPass(policy);
      const g = new Graph();
      const { actor, value } = policy.buildSequence(g, T, g.input('obs', 'float32', [T, 'N', OBS]), g.input('starts', 'float32', [T, 'N']), g.input('state0', 'float32', ['N', policy.stateWidth]));
      const session = await Session.create(g, { head: actor.head, value }, { weights: policy.weights });
      const out = await session.run({ obs: { data: obsAt, dims: [T, N, OBS] }, starts: { data: Float32Array.from(STARTS), dims: [T, N] }, state0: { data: new Float32Array(N * policy.stateWidth), dims: [N, policy.stateWidth] } });
      close(out.head!, acting.heads, 'head');
      close(out.value!, acting.values, 'value');
      await session.release();
    });

    it('exports one step that, fed its next_state, acts as the policy does', async () => {
      const policy = recurrentPolicy(core, shared);
      const acting = actingPass(policy);
      const session = await ort.InferenceSession.create(policy.exportOnnx({}));
      let state = new Float32Array(N * policy.stateWidth);
      for (let t = 0; t < T; t++) {
        for (let i = 0; i < N; i++) if (STARTS[t * N + i] === 1) state.fill(0, i * policy.stateWidth, (i + 1) * policy.stateWidth);
        const out = await session.run({ obs: new ort.Tensor('float32', obsAt.slice(t * N * OBS, (t + 1) * N * OBS), [N, OBS]), state: new ort.Tensor('float32', state, [N, policy.stateWidth]) });
        close(out.logits!.data as Float32Array, acting.heads.subarray(t * N * ACTIONS, (t + 1) * N * ACTIONS), `logits at step ${t}`);
        close(out.value!.data as Float32Array, acting.values.subarray(t * N, (t + 1) * N), `value at step ${t}`);
        state = Float32Array.from(out.next_state!.data as Float32Array);
      }
      await session.release();
    });
  });
}

it('a start forgets: the memory changes what the policy does, and a start undoes it', () => {
  const policy = recurrentPolicy({ kind: 'gru', size: 4 });
  const obs = Float32Array.from([0.5, -0.5]);
  const fresh = new Float32Array(ACTIONS);
  const remembered = new Float32Array(ACTIONS);
  const forgot = new Float32Array(ACTIONS);
  const state = new Float32Array(policy.stateWidth);
  policy.stepRows(obs, 1, state, null, fresh, null);
  policy.stepRows(obs, 1, state, null, remembered, null);
  policy.stepRows(obs, 1, state, [1], forgot, null);
  assert.ok(Math.abs(remembered[0]! - fresh[0]!) > 1e-6, 'the second step reads the first one\'s memory');
  assert.deepEqual([...forgot], [...fresh]);
});

it('an algorithm that cannot carry the memory refuses a policy with a core', () => {
  const component = { name: 'Memory', kind: 'mlp', params: { core: { kind: 'gru', size: 4 } } };
  const factory = new PolicyFactory(component, flatPolicySpaces(OBS, { kind: 'discrete', n: ACTIONS }), new Rng(1));
  assert.throws(() => factory.networks(ACTOR_CRITIC, 'REINFORCE'), (err: Error) => isInputError(err) && err.message === 'policy Memory has a recurrent core (core: gru), which REINFORCE cannot carry yet; use PPO, or set core: none in the policy');
});
