// TD3 (Fujimoto et al. 2018, "Addressing Function Approximation Error in Actor-Critic
// Methods"), as a numeric learner module, with CleanRL's td3_continuous_action.py maths. rlx
// runs the off-policy loop (acting with exploration noise, the replay buffer, Adam, the target
// networks' Polyak copies); this file says only what TD3 adds to DDPG's losses:
//
//   clipped double Q:        y = r + gamma (1 - done) min(Q1'(s', a'), Q2'(s', a'))
//   target policy smoothing: a' = clip(mu'(s') + clip(policy_noise eps, -noise_clip, noise_clip) scale, low, high)
//   critics:                 mean((Q1(s, a) - y)^2) + mean((Q2(s, a) - y)^2), every update
//   delayed policy update:   -mean(Q1(s, mu(s))), every policy_delay updates (the targets move then)
//
// examples/learners/pendulum-td3.rlx trains it on Pendulum.
import type { LearnerSettings, LossGraph, NumericBatch, NumericLosses, NumericNetworks } from 'rlx/learner';

export const spec = {
  api: 1,
  kind: 'numeric',
  doc: 'TD3 (Fujimoto et al. 2018): clipped double Q, target policy smoothing, delayed policy updates.',
  settings: {
    policy_noise: { type: 'number', default: 0.2, min: 0, doc: 'Std of the target policy smoothing noise, in units of the action scale.' },
    noise_clip: { type: 'number', default: 0.5, min: 0, doc: 'The smoothing noise is clipped to +-noise_clip (action-scale units).' },
    policy_delay: { type: 'int', default: 2, min: 1, doc: 'Critic updates per actor update (and target update).' },
  },
};

export function buildLosses(g: LossGraph, batch: NumericBatch, nets: NumericNetworks, settings: LearnerSettings): NumericLosses {
  const noiseClip = settings.noise_clip as number;
  const { observations: s, actions: a, nextObservations: next } = batch;

  // The target: target networks only, so no gradient flows through it.
  const smoothing = g.mul(g.clip(g.mul(batch.noise, settings.policy_noise as number), -noiseClip, noiseClip), nets.actionScale);
  const nextAction = g.clip(g.add(nets.targetActor(next), smoothing), nets.actionLow, nets.actionHigh);
  const minNextQ = g.min(nets.targetQ1(next, nextAction), nets.targetQ2(next, nextAction));
  const y = g.add(batch.rewards, g.mul(g.mul(g.sub(1, batch.dones), batch.gamma), minNextQ));

  const q1 = nets.q1(s, a);
  const q2 = nets.q2(s, a);
  const qf1Loss = g.mean(g.square(g.sub(q1, y)));
  const qf2Loss = g.mean(g.square(g.sub(q2, y)));
  const actorLoss = g.neg(g.mean(nets.q1(s, nets.actor(s))));
  return {
    critics: { loss: g.add(qf1Loss, qf2Loss), metrics: { qf1_loss: qf1Loss, qf2_loss: qf2Loss, qf1_values: g.mean(q1) } },
    actor: { loss: actorLoss, every: settings.policy_delay as number },
  };
}
