// Raw environment throughput, without any learning: a single CartPole
// stepped in a loop, and VecEnv with 8 copies (autoreset included).
// Run: npx tsc -p . && node out/bench/envs.js [seconds per case, default 2]

import { CartPole } from '../runtime/envs/cartpole.js';
import { makeVecEnv } from '../runtime/envs/registry.js';
import { Rng } from '../shared/random.js';

const secondsPerCase = Number(process.argv[2] ?? 2);

/** Runs `batch` (which performs `stepsPerBatch` env steps) repeatedly for about `seconds`; returns steps per second. */
function measure(stepsPerBatch: number, batch: () => void, seconds: number): number {
  const warmupEnd = performance.now() + 200;
  while (performance.now() < warmupEnd) batch();
  let steps = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  let now = start;
  while (now < end) {
    batch();
    steps += stepsPerBatch;
    now = performance.now();
  }
  return steps / ((now - start) / 1000);
}

function format(stepsPerSecond: number): string {
  return `${(stepsPerSecond / 1e6).toFixed(2)} M steps/s`;
}

// Actions are drawn in advance so that the generator's cost is not counted.
const actionTable = new Int32Array(1 << 16);
const rng = new Rng(1);
for (let i = 0; i < actionTable.length; i++) actionTable[i] = rng.int(2);

{
  const env = new CartPole();
  env.reset(0);
  const obs = new Float32Array(env.obsDim);
  let cursor = 0;
  const stepsPerBatch = 1000;
  const rate = measure(
    stepsPerBatch,
    () => {
      for (let i = 0; i < stepsPerBatch; i++) {
        env.stepInto(actionTable, cursor, obs, 0);
        cursor = (cursor + 1) & (actionTable.length - 1);
        if (env.terminated || env.truncated) env.resetInto(obs, 0);
      }
    },
    secondsPerCase,
  );
  console.log(`CartPole, single env, stepInto:      ${format(rate)}`);
}

{
  const env = new CartPole();
  env.reset(0);
  let cursor = 0;
  const stepsPerBatch = 1000;
  const rate = measure(
    stepsPerBatch,
    () => {
      for (let i = 0; i < stepsPerBatch; i++) {
        const result = env.step(actionTable[cursor]);
        cursor = (cursor + 1) & (actionTable.length - 1);
        if (result.terminated || result.truncated) env.reset();
      }
    },
    secondsPerCase,
  );
  console.log(`CartPole, single env, plain step():  ${format(rate)}`);
}

{
  const copies = 8;
  const vec = makeVecEnv('CartPole', {}, copies);
  vec.reset(0);
  const actions = new Int32Array(copies);
  let cursor = 0;
  const stepsPerBatch = 1000 * copies;
  const rate = measure(
    stepsPerBatch,
    () => {
      for (let i = 0; i < 1000; i++) {
        for (let c = 0; c < copies; c++) actions[c] = actionTable[(cursor + c) & (actionTable.length - 1)];
        cursor = (cursor + copies) & (actionTable.length - 1);
        vec.step(actions);
      }
      vec.takeFinishedEpisodes();
    },
    secondsPerCase,
  );
  console.log(`CartPole, VecEnv x${copies}:                ${format(rate)} (env steps, all copies)`);
}

// The other built-ins through VecEnv, for scale.
for (const kind of ['MountainCar', 'Acrobot', 'Pendulum', 'GridWorld', 'Bandit', 'Catch']) {
  const copies = 8;
  const vec = makeVecEnv(kind, {}, copies);
  vec.reset(0);
  const space = vec.actionSpace;
  const actions = space.kind !== 'box' ? new Int32Array(copies * vec.actionDim) : new Float32Array(copies * vec.actionDim);
  const actionRng = new Rng(2);
  const actionBank = Array.from({ length: 64 }, () => {
    const bank = actions.slice();
    for (let k = 0; k < bank.length; k++) bank[k] = space.kind === 'discrete' ? actionRng.int(space.n) : space.kind === 'multibinary' ? actionRng.int(2) : actionRng.uniformRange(space.low[0], space.high[0]);
    return bank;
  });
  let cursor = 0;
  const rate = measure(
    1000 * copies,
    () => {
      for (let i = 0; i < 1000; i++) {
        vec.step(actionBank[cursor]);
        cursor = (cursor + 1) & 63;
      }
      vec.takeFinishedEpisodes();
    },
    secondsPerCase / 2,
  );
  console.log(`${kind}, VecEnv x${copies}:`.padEnd(37) + `${format(rate)}`);
}
