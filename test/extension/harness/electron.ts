// The same suites through @vscode/test-electron, where a VS Code binary is at hand: it would
// download one otherwise, which cannot work offline, so this runs only when
// VSCODE_EXECUTABLE_PATH names an installed VS Code (1.100 or later).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runTests } from '@vscode/test-electron';
import type { SuiteResults } from '../suite/index.js';

export function vscodeExecutable(): string | undefined {
  const file = process.env.VSCODE_EXECUTABLE_PATH;
  return file && fs.existsSync(file) ? file : undefined;
}

export async function runInElectron(options: { executable: string; extension: string; tests: string; workspace: string; scratch: string }): Promise<{ exitCode: number; results: SuiteResults | undefined }> {
  const resultsFile = path.join(options.scratch, 'results-electron.json');
  let exitCode: number;
  try {
    exitCode = await runTests({
      vscodeExecutablePath: options.executable,
      extensionDevelopmentPath: options.extension,
      extensionTestsPath: options.tests,
      extensionTestsEnv: { RLX_TEST_RESULTS: resultsFile },
      launchArgs: [
        options.workspace,
        '--disable-extensions',
        '--disable-workspace-trust',
        '--disable-gpu',
        '--no-sandbox',
        '--user-data-dir', path.join(options.scratch, 'electron-user-data'),
        '--extensions-dir', path.join(options.scratch, 'electron-extensions'),
      ],
    });
  } catch (err) {
    // runTests rejects with the exit code (or an Error) when tests fail.
    exitCode = typeof err === 'number' ? err : 1;
  }
  const results = fs.existsSync(resultsFile) ? (JSON.parse(fs.readFileSync(resultsFile, 'utf8')) as SuiteResults) : undefined;
  return { exitCode, results };
}
