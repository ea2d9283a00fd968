// A large, realistic .rlx workspace for benchmarks: many envs, policies, algorithms, rewards and
// experiments that reference each other, with comments, in the shapes docs/language.md uses.

/** About `lines` lines in `declarations` declarations; it checks clean. */
export function generateSpec(declarations = 300, lines = 5000): string {
  const groups = Math.ceil(declarations / 5);
  const bodyLines = Math.max(1, Math.floor(lines / declarations) - 3);
  const out: string[] = ['// Generated benchmark workspace.', ''];
  for (let g = 0; g < groups; g++) {
    out.push(`/// Environment ${g}.`, `env Pole${g} = CartPole {`, `  max_steps: ${200 + g}`);
    for (let i = 0; i < bodyLines - 1; i++) out.push(`  // tuning note ${i}: keep the pole up`);
    out.push('}', '');
    out.push(`policy Net${g} = mlp {`, `  hidden: [${32 + (g % 4) * 16}, 64]`, '  activation: tanh');
    for (let i = 0; i < bodyLines - 2; i++) out.push(`  /* layer note ${i} */`);
    out.push('}', '');
    out.push(`algorithm Algo${g} = PPO {`, `  learning_rate: linear(${(2.5 + g / 100).toFixed(3)}e-4, 0)`, '  rollout_steps: 128', '  epochs: 4',
      '  minibatches: 4', '  clip: 0.2', '  gamma: 0.99', '  gae_lambda: 0.95', '  entropy_coef: 0.01');
    for (let i = 0; i < bodyLines - 9; i++) out.push(`  value_coef: 0.5 // ${i}`.replace(/value_coef: 0.5 \/\/ (\d+)/, '// value note $1'));
    out.push('}', '');
    out.push(`reward Shape${g} {`, '  term alive = 1.0', `  term centre = -0.05 * abs(obs.x)`, '  term tilt = -0.1 * abs(next_obs.theta)', '  replace_env_reward: true');
    for (let i = 0; i < bodyLines - 4; i++) out.push(`  term t${i} = ${i + 1} * 0.001 * obs.theta_dot`);
    out.push('}', '');
    out.push(`experiment Run${g} {`, `  env: Pole${g}`, `  policy: Net${g}`, `  algorithm: Algo${g}`, `  reward: Shape${g}`, '  budget: 500k', '  envs: 4',
      '  seeds: [1, 2, 3]', '  eval {', '    every: 10k', '    episodes: 10', '  }', '  stop: eval.mean_return >= 475');
    for (let i = 0; i < bodyLines - 13; i++) out.push(`  // experiment note ${i}`);
    out.push('}', '');
  }
  return out.join('\n');
}
