// Frames of a Gymnasium env made with render_mode "rgb_array": the worker hands over
// env.render() (worker.py render_frame), and a recorded episode (a training run's sampled, eval
// and final ones) keeps one PNG per step, the picture of the state its step line's observation
// describes. A render() that fails or returns
// something other than uint8 pixels is a clear error naming the env and the copy.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import { Stepper } from '../../../runtime/algorithms/stepper.js';
import { PythonEnvError, PythonEnvs, type PythonEnvOptions } from '../../../runtime/envs/python/python-env.js';
import { rendersFrames, type RgbFrame } from '../../../runtime/envs/types.js';
import { VecEnv } from '../../../runtime/envs/vector.js';
import { listRollouts, readRollout } from '../../../runtime/run/reader.js';
import { RolloutRecorder } from '../../../runtime/run/rollouts.js';
import { train } from '../../../runtime/train.js';
import { decodePng } from '../../helpers/png.js';
import { testPython, withTestPython } from '../../helpers/python.js';
import { makePlan, tempDir } from '../helpers.js';

const python = testPython();
const skip = python === null ? 'python3 with numpy is not available' : false;

function paint(kwargs: Record<string, unknown>): PythonEnvOptions {
  return { name: 'Paint', id: 'RlxPaint-v0', kwargs, imports: ['rlx_render_envs'], maxSteps: 0, timeoutSeconds: 20, copiesPerProcess: 2, python: python!.python, processEnv: python!.env };
}

/** RlxPaint-v0's picture of a state (test/fixtures/python/rlx_render_envs.py). */
function painted(cell: number, t: number): number[] {
  const pixels: number[] = [];
  for (let y = 0; y < 30; y++) {
    for (let x = 0; x < 100; x++) {
      const marker = y >= 5 && y < 25 && Math.floor(x / 10) === cell;
      const bar = y >= 27 && x < t * 10;
      pixels.push(...(marker ? [220, 30, 30] : bar ? [30, 200, 60] : [40, 40, 40]));
    }
  }
  return pixels;
}

describe('frames of a gymnasium env with render_mode "rgb_array"', { skip }, () => {
  it('a recorded episode keeps a PNG per step of the state its observation describes', () => {
    const envs = new PythonEnvs(paint({ render_mode: 'rgb_array' }));
    try {
      const vec = VecEnv.create(() => envs.create(), 3);
      assert.ok(rendersFrames(vec.envs[0]!));
      const dir = tempDir();
      const stepper = new Stepper(vec, null);
      const recorded: string[] = [];
      const recorder = new RolloutRecorder(
        dir,
        { env: 'Paint', obsFields: vec.obsFields, actionSpace: vec.actionSpace, terms: [], frame: () => (rendersFrames(vec.envs[0]!) ? vec.envs[0]!.renderFrame() : null) },
        (episode) => recorded.push(episode.file),
      );
      stepper.sink = recorder;
      stepper.reset(7);
      // Armed mid-episode: the recording (and its frames) starts with the next episode.
      stepper.step(vec.createActionBuffer());
      recorder.arm(100, false);
      const actions = vec.createActionBuffer();
      for (let k = 0; k < 20 && recorded.length === 0; k++) {
        actions.fill(k % 3 === 0 ? 0 : 1);
        stepper.step(actions);
      }
      assert.deepEqual(recorded, [path.join(dir, 'episode-100.jsonl')]);
      const episode = readRollout(recorded[0]!, dir);
      assert.equal(episode.kind, 'episode');
      if (episode.kind !== 'episode') return;
      assert.deepEqual(episode.header?.frames, { count: 6, width: 100, height: 30, source_width: 100, source_height: 30, dropped: 0 });
      assert.equal(episode.steps.length, 6);
      episode.steps.forEach((step, t) => {
        assert.equal(step.frame, `episode-100.frames/${t}.png`);
        const frame = decodePng(fs.readFileSync(path.join(dir, step.frame!)));
        assert.deepEqual([frame.width, frame.height, frame.channels], [100, 30, 3]);
        assert.deepEqual(Array.from(frame.pixels), painted(step.obs[0]!, step.obs[1]!), `frame ${t} shows the state of obs ${JSON.stringify(step.obs)}`);
      });
      assert.deepEqual(fs.readdirSync(dir).sort(), ['episode-100.frames', 'episode-100.jsonl']);
    } finally {
      envs.close();
    }
  });

  it("a training run keeps frames for its sampled, eval and final episodes", async () => {
    await withTestPython(async () => {
      const plan = makePlan({
        env: 'gymnasium',
        envParams: { id: 'RlxPaintRendered-v0', max_steps: 0, imports: ['rlx_render_envs'], python: '', env_timeout: 30, copies_per_process: 2 },
        budget: 512, envs: 2, algorithmParams: { rollout_steps: 64 }, eval: { every: 256, episodes: 2, deterministic: true },
      });
      const result = await train(plan, { out: tempDir(), compute: { threads: false }, rolloutEvery: 256 });
      assert.equal(result.status, 'finished');
      const episodes = listRollouts(result.runDir);
      assert.deepEqual([...new Set(episodes.map((e) => e.recorded))].sort(), ['eval', 'final', 'train']);
      for (const { file } of episodes) {
        const episode = readRollout(file, result.runDir);
        assert.ok(episode.kind === 'episode' && episode.header?.frames?.count === 6, `${file}: ${JSON.stringify(episode.kind === 'episode' ? episode.header : null)}`);
        for (const step of episode.steps) {
          const frame = decodePng(fs.readFileSync(path.join(result.runDir, 'rollouts', step.frame!)));
          assert.deepEqual(Array.from(frame.pixels), painted(step.obs[0]!, step.obs[1]!), `${step.frame} shows the state of obs ${JSON.stringify(step.obs)}`);
        }
      }
    });
  });

  it('an env made without render_mode draws no frames', () => {
    const envs = new PythonEnvs(paint({}));
    try {
      assert.equal(rendersFrames(envs.create()), false);
    } finally {
      envs.close();
    }
  });

  it('a render() that raises, or returns floats, fails naming the env, the copy and the reason', () => {
    for (const [frame, reason] of [['raise', /the painter ran out of paint/], ['float', /render\(\) returned pixels of dtype float32; rlx takes uint8 frames/]] as const) {
      const envs = new PythonEnvs(paint({ render_mode: 'rgb_array', frame }));
      try {
        const copy = envs.create();
        copy.reset(1);
        assert.throws(() => (copy as unknown as { renderFrame(): RgbFrame }).renderFrame(), (err: unknown) => {
          assert.ok(err instanceof PythonEnvError);
          assert.match(err.message, /^env Paint \(gymnasium "RlxPaint-v0"\) copy 0: render\(\) failed, so its frames cannot be recorded:/);
          assert.match(err.message, reason);
          assert.match(err.message, /leave render_mode out of the env's kwargs/);
          return true;
        });
        // The worker goes on serving: the failure was the picture's, not the env's.
        assert.equal(copy.step(1).reward, 1);
      } finally {
        envs.close();
      }
    }
  });
});
