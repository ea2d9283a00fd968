// The training commands: from a CodeLens (file and name given), from the palette (a quick
// pick of the experiments), and stop/resume from the Runs view.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { readRun } from '../../runtime/run/reader.js';
import { runSeed } from '../runs/describe.js';
import { isRunsNode, runDirOf } from '../runs/nodes.js';
import type { RunsTreeProvider } from '../runs/runs-view.js';
import type { RlxClient } from '../server/client.js';
import { runsRootFor } from '../settings.js';
import { nextUnusedSeed } from './command-line.js';
import type { ExperimentInfo, Launcher, TrainOutcome } from './launcher.js';
import type { TrainingManager } from './manager.js';
import type { PlanDocuments } from './plan-documents.js';

interface ExperimentPick extends vscode.QuickPickItem {
  uri: vscode.Uri;
  info: ExperimentInfo;
}

export function registerTrainingCommands(client: RlxClient, launcher: Launcher, manager: TrainingManager, tree: RunsTreeProvider, plans: PlanDocuments): vscode.Disposable[] {
  const target = async (uri: unknown, name: unknown, title: string, kind?: 'sweep'): Promise<{ uri: vscode.Uri; name: string } | undefined> => {
    if (uri instanceof vscode.Uri && typeof name === 'string') return { uri, name };
    const picked = await pickExperiment(client, title, kind);
    return picked ? { uri: picked.uri, name: picked.info.name } : undefined;
  };

  const trainExperiment = async (uri?: unknown, name?: unknown): Promise<TrainOutcome | undefined> => {
    const t = await target(uri, name, 'Train which experiment?');
    return t && launcher.train(t.uri, t.name);
  };

  return [
    // One handler, two ids: `rlx.train` is the lens's, `rlx.trainExperiment` the palette's and menus'.
    vscode.commands.registerCommand('rlx.train', trainExperiment),
    vscode.commands.registerCommand('rlx.trainExperiment', trainExperiment),
    vscode.commands.registerCommand('rlx.trainSweep', async (uri?: unknown, name?: unknown): Promise<TrainOutcome | undefined> => {
      const t = await target(uri, name, 'Run which sweep?', 'sweep');
      return t && launcher.train(t.uri, t.name);
    }),
    vscode.commands.registerCommand('rlx.trainWithSeed', async (uri?: unknown, name?: unknown, seed?: unknown): Promise<TrainOutcome | undefined> => {
      const t = await target(uri, name, 'Train which experiment?');
      if (!t) return undefined;
      let value = typeof seed === 'number' ? seed : undefined;
      if (value === undefined) {
        // Offer a seed no run of this experiment used (in the file's runs folder).
        const root = runsRootFor(t.uri);
        const used = tree.allRuns().filter((r) => r.experiment === t.name && path.dirname(path.dirname(r.dir)) === root).map(runSeed);
        const text = await vscode.window.showInputBox({
          title: `Train ${t.name} with seed`,
          prompt: 'A whole number; the run is reproducible with the same seed.',
          value: String(nextUnusedSeed(used)),
          validateInput: (s) => (/^\d+$/.test(s.trim()) && Number.isSafeInteger(Number(s)) ? undefined : 'A whole number >= 0'),
        });
        if (text === undefined) return undefined;
        value = Number(text.trim());
      }
      return launcher.train(t.uri, t.name, value);
    }),
    vscode.commands.registerCommand('rlx.stopRun', async (arg?: unknown): Promise<boolean> => {
      // The lens over a training experiment stops all its runs: directories and queued jobs.
      if (Array.isArray(arg)) {
        const results = await Promise.all(arg.map((a: unknown) => vscode.commands.executeCommand<boolean>('rlx.stopRun', a)));
        return results.some((r) => r);
      }
      if (isRunsNode(arg) && arg.kind === 'job') {
        manager.stopJob(arg.job);
        return true;
      }
      const dir = runDirOf(arg) ?? (await pickRunning(manager, tree));
      if (!dir) return false;
      if (dir.startsWith('job:')) {
        const job = manager.active.find((j) => `job:${j.id}` === dir);
        if (job) manager.stopJob(job);
        return job !== undefined;
      }
      const stopped = manager.stopRun(dir);
      if (!stopped) void vscode.window.showWarningMessage(`${path.basename(dir)} is not training (its trainer is gone).`);
      return stopped;
    }),
    vscode.commands.registerCommand('rlx.resumeRun', async (arg?: unknown): Promise<TrainOutcome | undefined> => {
      const dir = runDirOf(arg) ?? (await pickResumable(tree));
      return dir ? launcher.resume(dir) : undefined;
    }),
    vscode.commands.registerCommand('rlx.showPlan', async (uri?: unknown, name?: unknown) => {
      const t = await target(uri, name, 'Show the plan of which experiment?');
      if (!t) return;
      const plan = await client.plan(t.uri, t.name);
      if (!plan || !plan.ok) {
        void vscode.window.showErrorMessage(`No plan for ${t.name}: ${plan ? plan.error : 'the language server is not running'}.`);
        return;
      }
      // A large sweep comes as its first plans only (server/features/experiments.ts PLANS_SHOWN).
      const json = JSON.stringify(plan.count === 1 ? plan.plans[0] : plan.plans, null, 2);
      return plans.show(t.uri, t.name, json + '\n');
    }),
    vscode.commands.registerCommand('rlx.showTrainingOutput', () => manager.output.show(true)),
  ];
}

/** The experiments of the active .rlx editor, else of every .rlx file in the workspace. */
async function pickExperiment(client: RlxClient, title: string, kind?: 'sweep'): Promise<ExperimentPick | undefined> {
  const active = vscode.window.activeTextEditor?.document;
  const uris = active?.languageId === 'rlx' ? [active.uri] : await vscode.workspace.findFiles('**/*.rlx', '**/{node_modules,runs}/**', 200);
  const items: ExperimentPick[] = [];
  for (const uri of uris) {
    for (const info of (await client.experiments(uri)) ?? []) {
      if (kind && info.kind !== kind) continue;
      items.push({
        label: info.name,
        description: `${info.kind} · ${vscode.workspace.asRelativePath(uri)}`,
        detail: info.clean ? undefined : `$(error) ${info.errors} error${info.errors === 1 ? '' : 's'} to fix first`,
        uri,
        info,
      });
    }
  }
  if (items.length === 0) {
    const why = client.state !== 'running' ? 'the rlx language server is not running' : uris.length === 0 ? 'there are no .rlx files' : 'no experiment is declared';
    void vscode.window.showInformationMessage(`Nothing to train: ${why}.`);
    return undefined;
  }
  return vscode.window.showQuickPick(items, { title, matchOnDescription: true });
}

async function pickRunning(manager: TrainingManager, tree: RunsTreeProvider): Promise<string | undefined> {
  const items = [
    ...manager.queued.map((j) => ({ label: j.label, description: 'queued', key: `job:${j.id}` })),
    ...tree.allRuns().filter((r) => r.state === 'running').map((r) => ({ label: `${r.experiment}/${r.runId}`, description: 'running', key: r.dir })),
  ];
  if (items.length === 0) {
    void vscode.window.showInformationMessage('Nothing is training.');
    return undefined;
  }
  // One run training: that is the one (no question to answer).
  if (items.length === 1) return items[0].key;
  return (await vscode.window.showQuickPick(items, { title: 'Stop which run?' }))?.key;
}

async function pickResumable(tree: RunsTreeProvider): Promise<string | undefined> {
  const runs = tree.allRuns().filter((r) => ['stopped', 'crashed', 'failed'].includes(readRun(r.dir).state));
  if (runs.length === 0) {
    void vscode.window.showInformationMessage('No stopped or crashed run to resume.');
    return undefined;
  }
  const items = runs.map((r) => ({ label: `${r.experiment}/${r.runId}`, description: r.state, dir: r.dir }));
  return (await vscode.window.showQuickPick(items, { title: 'Resume which run?' }))?.dir;
}
