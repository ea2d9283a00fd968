// rlx tokenize MODEL_DIR|RUN_DIR --text T [--chat [--system S] [--chat-var NAME=VALUE]...] [--json]: the
// token ids of a text under a pretrained model's own tokenizer; with --chat, of the text as the
// user's message rendered through the model's chat template with the generation prompt (after
// the system message S, where given), as transformers' apply_chat_template renders it.
import { parseCommandArgs, type Command } from '../command.js';
import { UserError } from '../files.js';
import { CHAT_OPTIONS, chatVariables } from './model-args.js';

const usage = 'rlx tokenize MODEL_DIR|RUN_DIR --text T [--chat [--system S] [--chat-var NAME=VALUE]...] [--json]';

export const tokenizeCommand: Command = {
  name: 'tokenize',
  summary: "print the token ids of a text under a pretrained model's tokenizer (and chat template)",
  usage,
  async run(argv) {
    const { values, positionals } = parseCommandArgs('tokenize', argv, { text: { type: 'string' }, json: { type: 'boolean' }, ...CHAT_OPTIONS }, usage);
    if (positionals.length !== 1) throw new UserError(`name one model folder or run directory\nusage: ${usage}`);
    if (values.text === undefined) throw new UserError(`--text is required\nusage: ${usage}`);
    if (!values.chat && (values.system !== undefined || values['chat-var'])) throw new UserError('--system and --chat-var apply to --chat');
    const [{ renderChat }, { loadModelAt }] = await Promise.all([import('../../runtime/lm/model-folder.js'), import('../../runtime/run-policy.js')]);
    const { text, ids, tokens } = (() => {
      const { folder } = loadModelAt(positionals[0]!);
      const text = values.chat ? renderChat(folder, { user: values.text!, system: values.system, variables: chatVariables(values['chat-var'], folder.chat, 'tokenize') }) : values.text!;
      const ids = folder.tokenizer.encode(text);
      return { text, ids, tokens: ids.map((id) => folder.tokenizer.decode([id])) };
    })();
    if (values.json) process.stdout.write(JSON.stringify({ text, ids, tokens }) + '\n');
    else process.stdout.write(`${ids.join(',')}\n`);
    return 0;
  },
};
