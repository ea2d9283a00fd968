// A scratch folder to run the rlx command line in, as the CLI tests use it: write files into
// it, run `rlx` there, and a small valid spec to start from. Removed when the test file ends.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after } from 'node:test';
import { repoRoot } from '../helpers/repo.js';

export const GOOD = `env Pole = CartPole { max_steps: 500 }
policy Actor = mlp { hidden: [64, 64] }
algorithm Tuned = PPO { learning_rate: linear(2.5e-4, 0) }
experiment Balance { env: Pole, policy: Actor, algorithm: Tuned, budget: 10k }
`;

export interface Scratch {
  readonly work: string;
  /** Runs bin/rlx.js in the folder. */
  rlx(...args: string[]): { code: number; stdout: string; stderr: string };
  /** Writes a file (folders made as needed); returns its name. */
  write(name: string, text: string | Buffer): string;
}

/** `nodeArgs` go before the script (e.g. a small heap). */
export function scratch(prefix: string, nodeArgs: readonly string[] = []): Scratch {
  const bin = path.join(repoRoot(), 'bin', 'rlx.js');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  after(() => fs.rmSync(work, { recursive: true, force: true }));
  return {
    work,
    rlx: (...args) => {
      const r = spawnSync(process.execPath, [...nodeArgs, bin, ...args], { cwd: work, encoding: 'utf8', timeout: 120_000, maxBuffer: 1 << 30 });
      return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
    },
    write: (name, text) => {
      const file = path.join(work, name);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
      return name;
    },
  };
}
