// npm run bench: every benchmark, figures printed (never asserted). `npm run bench -- dsl`
// runs the named ones only; whole trainings (`text-learning`) run only when named.
import { benchDqnParity } from './dqn-parity.js';
import { benchDsl } from './dsl.js';
import { benchPpo } from './ppo.js';
import { benchReinforce } from './reinforce.js';
import { benchLsp } from './lsp.js';
import { benchTensor } from './tensor.js';
import { benchWebview } from './webview.js';
import { benchText, benchTextLearning } from './text.js';
import { benchOffPolicy, benchOffPolicyLearning } from './offpolicy.js';
import { benchGpu } from './gpu.js';
import { benchSlurm } from './slurm.js';
import { benchSweep } from './sweep.js';

const BENCHES: Record<string, () => void | Promise<void>> = {
  dsl: benchDsl,
  ppo: benchPpo,
  tensor: () => benchTensor(),
  reinforce: benchReinforce,
  lsp: benchLsp,
  webview: benchWebview,
  text: benchText,
  'text-learning': benchTextLearning,
  offpolicy: benchOffPolicy,
  'offpolicy-learning': benchOffPolicyLearning,
  'dqn-parity': benchDqnParity,
  sweep: benchSweep,
  slurm: benchSlurm,
  gpu: benchGpu,
};

/** Runs of minutes (whole trainings), the Slurm one (it needs a cluster) and the GPU one (meant for a GPU machine): only when named. */
const ON_REQUEST = ['text-learning', 'offpolicy', 'offpolicy-learning', 'sweep', 'slurm', 'gpu'];

const wanted = process.argv.slice(2);
for (const [name, run] of Object.entries(BENCHES)) {
  if (wanted.length === 0 ? !ON_REQUEST.includes(name) : wanted.includes(name)) await run();
}
