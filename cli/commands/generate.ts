// rlx generate MODEL_DIR|RUN_DIR --prompt T | --prompt-ids 1,2,3 [--chat ...] [--max-tokens N]
// [--greedy | --temperature X] [--top-k K] [--top-p P] [--min-p P] [--repetition-penalty R]
// [--stop S]... [--seed N] [--score-ids 4,5,6] [--json]: completes a prompt with a pretrained
// model on the CPU and prints the prompt's ids, the completion's ids, its text and each token's
// log-probability (under the model at temperature 1). --score-ids prints the log-probabilities
// of the given completion instead of sampling one. The sampling flags are the spec's settings
// (dsl/schema/sampling.ts) with the same ranges; a prompt and completion longer than the
// model's context is refused before anything runs.
import { parseCommandArgs, type Command } from '../command.js';
import { UserError } from '../files.js';
import { CHAT_OPTIONS, chatVariables, tokenIds } from './model-args.js';
import type { SamplingControls } from '../../runtime/lm/sampling.js';

const usage =
  'rlx generate MODEL_DIR|RUN_DIR (--prompt T | --prompt-ids 1,2,3) [--chat [--system S] [--chat-var NAME=VALUE]...]\n' +
  '  [--max-tokens N] [--greedy | --temperature X] [--top-k K] [--top-p P] [--min-p P] [--repetition-penalty R] [--stop S]...\n' +
  '  [--seed N] [--score-ids 4,5,6] [--json]';

function positiveNumber(option: string, text: string | undefined, fallback: number, integer: boolean): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!(value > 0) || (integer && !Number.isSafeInteger(value))) throw new UserError(`${option} needs a ${integer ? 'whole ' : ''}number above 0, got '${text}'`);
  return value;
}

/** The sampling flags as the sampler takes them (lm/sampling.ts), each checked as the spec's setting is; undefined when none is given. */
function samplingFlags(values: { 'top-k'?: string; 'top-p'?: string; 'min-p'?: string; 'repetition-penalty'?: string; stop?: string[] }): SamplingControls | undefined {
  const inRange = (option: string, text: string | undefined, ok: (v: number) => boolean, range: string): number | undefined => {
    if (text === undefined) return undefined;
    const value = Number(text);
    if (text.trim() === '' || !Number.isFinite(value) || !ok(value)) throw new UserError(`${option} needs ${range}, got '${text}'`);
    return value;
  };
  const topK = inRange('--top-k', values['top-k'], (v) => Number.isSafeInteger(v) && v >= 1, 'a whole number >= 1');
  const topP = inRange('--top-p', values['top-p'], (v) => v > 0 && v <= 1, 'a number in (0, 1]');
  const minP = inRange('--min-p', values['min-p'], (v) => v >= 0 && v < 1, 'a number in [0, 1)');
  const repetitionPenalty = inRange('--repetition-penalty', values['repetition-penalty'], (v) => v > 0, 'a number above 0');
  if (values.stop?.some((s) => s === '')) throw new UserError('--stop needs a non-empty string');
  const controls: SamplingControls = {
    ...(topK !== undefined ? { topK } : {}),
    ...(topP !== undefined ? { topP } : {}),
    ...(minP !== undefined ? { minP } : {}),
    ...(repetitionPenalty !== undefined ? { repetitionPenalty } : {}),
    ...(values.stop?.length ? { stop: values.stop } : {}),
  };
  return Object.keys(controls).length > 0 ? controls : undefined;
}

export const generateCommand: Command = {
  name: 'generate',
  summary: 'complete a prompt with a pretrained model (or score a given completion) and print ids, text and log-probs',
  usage,
  async run(argv) {
    const { values, positionals } = parseCommandArgs(
      'generate',
      argv,
      {
        prompt: { type: 'string' },
        'prompt-ids': { type: 'string' },
        'max-tokens': { type: 'string' },
        greedy: { type: 'boolean' },
        temperature: { type: 'string' },
        'top-k': { type: 'string' },
        'top-p': { type: 'string' },
        'min-p': { type: 'string' },
        'repetition-penalty': { type: 'string' },
        stop: { type: 'string', multiple: true },
        seed: { type: 'string' },
        'score-ids': { type: 'string' },
        json: { type: 'boolean' },
        ...CHAT_OPTIONS,
      },
      usage,
    );
    if (positionals.length !== 1) throw new UserError(`name one model folder or run directory\nusage: ${usage}`);
    if ((values.prompt === undefined) === (values['prompt-ids'] === undefined)) throw new UserError(`give --prompt or --prompt-ids (one of them)\nusage: ${usage}`);
    if (values.chat && values['prompt-ids'] !== undefined) throw new UserError('--chat renders a --prompt text through the chat template; --prompt-ids are used as they are');
    if (values.greedy && values.temperature !== undefined) throw new UserError('--greedy and --temperature exclude each other');
    const maxTokens = positiveNumber('--max-tokens', values['max-tokens'], 64, true);
    const temperature = positiveNumber('--temperature', values.temperature, 1, false);
    const controls = samplingFlags(values);
    const seed = values.seed === undefined ? 0 : Number(values.seed);
    if (!Number.isSafeInteger(seed) || seed < 0) throw new UserError(`--seed needs a whole number >= 0, got '${values.seed}'`);

    const [{ renderChat }, { loadModelAt }, { Rng }] = await Promise.all([
      import('../../runtime/lm/model-folder.js'),
      import('../../runtime/run-policy.js'),
      import('../../shared/random.js'),
    ]);
    const result = await (async () => {
      const { folder, load } = loadModelAt(positionals[0]!);
      const { tokenizer } = folder;
      const prompt =
        values['prompt-ids'] !== undefined
          ? tokenIds('--prompt-ids', values['prompt-ids'], folder.config.vocab)
          : tokenizer.encode(values.chat ? renderChat(folder, { user: values.prompt!, system: values.system, variables: chatVariables(values['chat-var'], folder.chat, 'generate') }) : values.prompt!);
      if (prompt.length === 0) throw new UserError('the prompt is empty; give at least one token');
      const length = values['score-ids'] !== undefined ? tokenIds('--score-ids', values['score-ids'], folder.config.vocab).length : maxTokens;
      const what = values['score-ids'] !== undefined ? `--score-ids (${length} tokens)` : `--max-tokens ${length}`;
      if (prompt.length + length > folder.config.context) {
        throw new UserError(`the prompt (${prompt.length} tokens) and ${what} exceed the model's context of ${folder.config.context} tokens (${positionals[0]}/config.json); give at most ${Math.max(0, folder.config.context - prompt.length)} new tokens or a shorter prompt`);
      }
      const model = load();
      try {
        if (values['score-ids'] !== undefined) {
          const ids = tokenIds('--score-ids', values['score-ids'], folder.config.vocab);
          return { prompt, ids, text: tokenizer.decode(ids, { skipSpecialTokens: true }), logProbs: await model.score(prompt, ids), finish: 'scored' };
        }
        const [completion] = await model.generate([prompt], { maxNewTokens: maxTokens, greedy: values.greedy ?? false, temperature, rng: new Rng(seed), ...(controls ? { controls } : {}) });
        return { prompt, ids: completion!.ids, text: tokenizer.decode(completion!.ids, { skipSpecialTokens: true }), logProbs: completion!.logProbs, finish: completion!.finish };
      } finally {
        await model.release();
      }
    })();
    const { text } = result;
    const sum = result.logProbs.reduce((s, v) => s + v, 0);
    if (values.json) {
      process.stdout.write(JSON.stringify({ prompt_ids: result.prompt, completion_ids: result.ids, text, logprobs: result.logProbs, logprob_sum: sum, finish: result.finish }) + '\n');
    } else {
      process.stdout.write(
        [`prompt ids: ${result.prompt.join(',')}`, `completion ids: ${result.ids.join(',')}`, `text: ${JSON.stringify(text)}`, `log-probs: ${result.logProbs.map((v) => v.toFixed(4)).join(' ')}`, `log-prob sum: ${sum.toFixed(4)} (${result.finish})`].join('\n') + '\n',
      );
    }
    return 0;
  },
};
