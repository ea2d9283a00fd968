// rlx export RUN_DIR --to DIR [--merge]: a pretrained policy's training result as Hugging Face
// files: a LoRA run as a PEFT adapter folder (with --merge, the base model with the adapters
// merged in), a full fine-tuning run as a complete model folder. Both load in transformers
// and vLLM, and the model folder loads back into rlx as pretrained("DIR").
import * as fs from 'node:fs';
import { displayPath, parseCommandArgs, type Command } from '../command.js';
import { UserError } from '../files.js';

const usage = 'rlx export RUN_DIR --to DIR [--merge]';

export const exportCommand: Command = {
  name: 'export',
  summary: "write a pretrained policy's training result as a Hugging Face model folder or a PEFT adapter",
  usage,
  async run(argv) {
    const { values, positionals } = parseCommandArgs('export', argv, { to: { type: 'string' }, merge: { type: 'boolean' } }, usage);
    if (positionals.length !== 1) throw new UserError(`name one run directory\nusage: ${usage}`);
    if (values.to === undefined) throw new UserError(`--to DIR is required: the folder to write\nusage: ${usage}`);
    const out = values.to;
    // Nothing a user wrote is overwritten: the folder must be new or empty.
    if (fs.existsSync(out) && (!fs.statSync(out).isDirectory() || fs.readdirSync(out).length > 0)) {
      throw new UserError(`${out} already exists and is not an empty folder; export into a new folder`);
    }
    const [{ readRunPolicy }, { exportPretrained }] = await Promise.all([import('../../runtime/lm/run-policy.js'), import('../../runtime/lm/export.js')]);
    const result = (() => {
      const policy = readRunPolicy(positionals[0]!);
      if (values.merge && !policy.manifest.lora) process.stderr.write('rlx export: --merge has nothing to merge (the run trained every weight); writing the model folder\n');
      return { ...exportPretrained(policy.manifest, policy.weights, out, { merge: values.merge ?? false, recordedIn: policy.manifestFile }), step: policy.step };
    })();
    process.stderr.write(`rlx export: wrote ${result.kind === 'adapter' ? 'a PEFT adapter' : 'a model folder'} from step ${result.step} to ${displayPath(out)}\n`);
    for (const file of result.files) process.stdout.write(`${displayPath(file)}\n`);
    return 0;
  },
};
