// rollouts/ for text runs: every so many steps the learner's next batch is written, group by
// group, for the editor's rollout inspector: each start (a prompt, or a dialogue's opening),
// and each sample of its group with its reward, each reward term, its advantage and its
// verdict; dialogues turn by turn. One atomic write per batch, as episode files are written:
//   {"type":"header","kind":"text","env":"TextTask","task":"addition(digits: 2)","terms":["answer","format"],"algorithm":"GRPO","stage":"main","group_size":8,"step":N}
//   {"type":"group","start":"12+34=","prompt":"<|im_start|>user\n12+34=<|im_end|>\n...","target":"46","samples":[{"text":"46","reward":1.1,"terms":{"answer":1,"format":0.1},"advantage":0.93,"correct":true}, ...]}
//   {"type":"group","start":"1..100","samples":[{"turns":[["system","..."],["user","1..100"],["assistant","50"],["user","higher"],...],"reward":1,"advantage":0.5,"success":true}, ...]}
// A dialogue's turns are its messages with the chat template's roles, from the first: the
// system prompt (a pretrained policy's `chat { system }`, where set), the opening as the
// policy read it (through `chat { user }`), then the agent's turns (assistant) and the env's
// replies (user), as decoded text.
// A pretrained model's group has `prompt` too: what the model read (the start through its chat
// template, special tokens written out), which is what its completions answer.
// The file is named episode-<step>.jsonl like the numeric envs' episodes, so one listing serves both.
//
// At the end of a finished run, the final policy's greedy answers on the held-out starts (what
// its last evaluation scored) go to episode-<step>-final.jsonl, as a numeric run's final episode
// does: the same lines, `"recorded":"final","deterministic":true` in the header, one group per
// held-out start with its one sample and no advantage (nothing was trained on it).
import * as path from 'node:path';
import { writeFileAtomic } from '../atomic-files.js';
import type { Rollouts, SampleRecord } from '../text/text-env.js';
import { rolloutFileName } from './rollouts.js';

/** At most this many groups of a batch are written (a batch of 64 prompts would make a long page). */
const GROUPS_PER_FILE = 16;

export interface RecordedBatch {
  readonly file: string;
  /** The batch's mean reward, and the number of groups written. */
  readonly return: number;
  readonly length: number;
}

/** One sample as a line of a group (a batch's sample carries the advantage it was trained with). */
function sampleLine(s: SampleRecord, advantage?: number): Record<string, unknown> {
  return {
    ...(s.text !== undefined ? { text: s.text } : {}),
    ...(s.turns !== undefined ? { turns: s.turns } : {}),
    reward: s.reward,
    ...(s.terms !== undefined ? { terms: s.terms } : {}),
    ...(advantage !== undefined ? { advantage } : {}),
    ...(s.correct !== undefined ? { correct: s.correct } : {}),
    ...(s.success !== undefined ? { success: s.success } : {}),
  };
}

/** A group's line: its start (and what the model read of it), its target, its samples. */
function groupLine(first: SampleRecord, samples: readonly Record<string, unknown>[]): Record<string, unknown> {
  return { type: 'group', start: first.start, ...(first.prompt !== undefined ? { prompt: first.prompt } : {}), ...(first.target !== undefined ? { target: first.target } : {}), samples };
}

/** Writes the final policy's greedy answers on the held-out starts (its last evaluation's samples) into `dir`. */
export function writeHeldOutAnswers(
  dir: string,
  header: { env: string; task: string; terms: readonly string[]; algorithm: string; stage: string; step: number },
  samples: readonly SampleRecord[],
): RecordedBatch {
  const { step } = header;
  const lines = [JSON.stringify({ type: 'header', kind: 'text', env: header.env, task: header.task, terms: header.terms, algorithm: header.algorithm, stage: header.stage, group_size: 1, step, recorded: 'final', deterministic: true })];
  for (const s of samples) lines.push(JSON.stringify(groupLine(s, [sampleLine(s)])));
  const file = path.join(dir, rolloutFileName(step, 'final'));
  writeFileAtomic(file, lines.join('\n') + '\n');
  return { file, return: samples.reduce((sum, s) => sum + s.reward, 0) / Math.max(1, samples.length), length: samples.length };
}

export class TextRolloutRecorder {
  private armed = false;

  constructor(
    private readonly header: { env: string; task: string; terms: readonly string[] },
    /** Where files go, the run's step and stage now, and who is told of each file (null until the run directory exists). */
    private readonly target: () => { dir: string; step: number; stage: string; onRecorded(batch: RecordedBatch): void } | null,
  ) {}

  /** Records the next batch offered (a stage whose learner offers none, SFT, leaves it for the next stage's first). */
  arm(): void {
    this.armed = true;
  }

  /** Called by the learner with each batch and its advantages; writes it when armed. */
  offer(algorithm: string, batch: Rollouts, groupSize: number, advantages: Float32Array): void {
    const target = this.target();
    if (!this.armed || target === null) return;
    // The batch was sampled from the policy at this step: the learner offers it before counting its steps.
    const step = target.step;
    this.armed = false;
    const lines = [
      JSON.stringify({ type: 'header', kind: 'text', env: this.header.env, task: this.header.task, terms: this.header.terms, algorithm, stage: target.stage, group_size: groupSize, step }),
    ];
    const groups = Math.min(GROUPS_PER_FILE, batch.rows / groupSize);
    for (let g = 0; g < groups; g++) {
      const first = batch.samples[g * groupSize]!;
      const samples = batch.samples.slice(g * groupSize, (g + 1) * groupSize).map((s, i) => sampleLine(s, advantages[g * groupSize + i]!));
      lines.push(JSON.stringify(groupLine(first, samples)));
    }
    const file = path.join(target.dir, `episode-${step}.jsonl`);
    writeFileAtomic(file, lines.join('\n') + '\n');
    const mean = batch.rewards.reduce((a, b) => a + b, 0) / batch.rows;
    target.onRecorded({ file, return: mean, length: groups });
  }
}
