// npm run bench: every benchmark, figures printed (never asserted). `npm run bench -- dsl`
// runs the named ones only; whole trainings (`text-learning`) run only when named.
// Each bench module is imported only when it runs, so a bench needs only its own packages
// (the gpu one runs on a GPU machine that has no browser or language-server client).
const BENCHES: Record<string, () => Promise<void>> = {
  dsl: async () => (await import('./dsl.js')).benchDsl(),
  ppo: async () => (await import('./ppo.js')).benchPpo(),
  tensor: async () => (await import('./tensor.js')).benchTensor(),
  optim: async () => (await import('./optim.js')).benchOptim(),
  reinforce: async () => (await import('./reinforce.js')).benchReinforce(),
  lsp: async () => (await import('./lsp.js')).benchLsp(),
  webview: async () => (await import('./webview.js')).benchWebview(),
  text: async () => (await import('./text.js')).benchText(),
  'text-learning': async () => (await import('./text.js')).benchTextLearning(),
  offpolicy: async () => (await import('./offpolicy.js')).benchOffPolicy(),
  'offpolicy-learning': async () => (await import('./offpolicy.js')).benchOffPolicyLearning(),
  'her-bit-flip': async () => (await import('./offpolicy.js')).benchBitFlip(),
  'dqn-parity': async () => (await import('./dqn-parity.js')).benchDqnParity(),
  'dqn-zoo': async () => (await import('./dqn-zoo.js')).benchDqnZoo(),
  'dqn-replay': async () => (await import('./dqn-replay.js')).benchDqnReplay(),
  sweep: async () => (await import('./sweep.js')).benchSweep(),
  slurm: async () => (await import('./slurm.js')).benchSlurm(),
  gpu: async () => (await import('./gpu.js')).benchGpu(),
  'chunked-load': async () => (await import('./chunked-load.js')).benchChunkedLoad(),
  'grpo-variants': async () => (await import('./grpo-variants.js')).benchGrpoVariants(),
  pretrained: async () => (await import('./pretrained.js')).benchPretrained(),
  'lm-scale': async () => (await import('./lm-scale.js')).benchLmScale(),
  'python-env': async () => (await import('./python-env.js')).benchPythonEnv(),
  'dashboard-read': async () => (await import('./dashboard-read.js')).benchDashboardRead(),
  mujoco: async () => (await import('./mujoco.js')).benchMujoco(),
  masks: async () => (await import('./masks.js')).benchMasks(),
};

/** Runs of minutes (whole trainings, the pretrained model's steps, the optimiser at 85M parameters, a 200 MB events.jsonl read twice, SB3 against rlx on three seeds, a whole DQN run replayed), the Slurm one (it needs a cluster) and the GPU one (meant for a GPU machine): only when named. */
const ON_REQUEST = ['masks', 'mujoco', 'dashboard-read', 'python-env', 'optim', 'pretrained', 'lm-scale', 'text-learning', 'grpo-variants', 'offpolicy', 'offpolicy-learning', 'dqn-zoo', 'dqn-replay', 'her-bit-flip', 'sweep', 'slurm', 'gpu', 'chunked-load'];

const wanted = process.argv.slice(2);
for (const [name, run] of Object.entries(BENCHES)) {
  if (wanted.length === 0 ? !ON_REQUEST.includes(name) : wanted.includes(name)) await run();
}
