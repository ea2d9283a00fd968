// From "Train" to running trainers: every check that can refuse happens here, before a process
// starts, each refusal one clear message with the way out (Problems, Workspace Trust, the
// setting to change). Returns what happened, so that commands, CodeLens and tests share it.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { readPlan, readRun } from '../../runtime/run/reader.js';
import type { ExperimentsResult } from '../../server/protocol.js';
import { cannotTrainYet, fixErrorsFirst, noExperiment, plural, serverNotRunning, untrustedModules } from '../messages.js';
import type { RlxClient } from '../server/client.js';
import { folderOf, readSettings, runsRootFor } from '../settings.js';
import { userModules } from '../trust.js';
import { trainerCommand, type TrainerCommand } from './command-line.js';
import type { JobSpec, TrainingBatch, TrainingManager } from './manager.js';
import { checkRunsFolder, checkTrainer } from './preflight.js';
import { sweepRuns } from './progress.js';

export type TrainOutcome = { ok: true; batch: TrainingBatch } | { ok: false; reason: string };

export type ExperimentInfo = ExperimentsResult[number];

/** A button on a refusal and what it does. */
type Action = { title: string; run: () => unknown };

const SHOW_PROBLEMS: Action = { title: 'Show Problems', run: () => vscode.commands.executeCommand('workbench.actions.view.problems') };
const MANAGE_TRUST: Action = { title: 'Manage Workspace Trust', run: () => vscode.commands.executeCommand('workbench.trust.manage') };
const RESTART_SERVER: Action = { title: 'Restart Language Server', run: () => vscode.commands.executeCommand('rlx.restartServer') };
const openSetting = (id: string): Action => ({ title: 'Open Settings', run: () => vscode.commands.executeCommand('workbench.action.openSettings', id) });

export class Launcher {
  constructor(
    private readonly client: RlxClient,
    private readonly manager: TrainingManager,
    /** dist/rlx.mjs: the command line this extension ships. */
    private readonly bundledCli: string,
  ) {}

  /** Trains an experiment (each of its seeds as its own run, unless `seed` picks one) or a sweep. */
  async train(uri: vscode.Uri, name: string, seed?: number): Promise<TrainOutcome> {
    const document = await vscode.workspace.openTextDocument(uri);
    if (document.isUntitled || uri.scheme !== 'file') return refuse('Save this file first: the trainer reads specs from disk.');
    // The trainer reads the files from disk: what the editor shows is what trains.
    for (const doc of vscode.workspace.textDocuments) if (doc.languageId === 'rlx' && doc.isDirty && !doc.isUntitled) await doc.save();

    if (this.client.state !== 'running') return refuse(serverNotRunning(), RESTART_SERVER);
    const info = (await this.client.experiments(uri))?.find((e) => e.name === name);
    if (!info) return refuse(noExperiment(name, path.basename(uri.fsPath)));
    if (info.errors > 0) return refuse(fixErrorsFirst(name, info.errors), SHOW_PROBLEMS);
    if (info.unsupported.length > 0) return refuse(cannotTrainYet(name, info.unsupported), SHOW_PROBLEMS);
    const plan = await this.client.plan(uri, name);
    if (!plan) return refuse(serverNotRunning(), RESTART_SERVER);
    if (!plan.ok) return refuse(`Cannot train ${name}: ${plan.error}`, SHOW_PROBLEMS);
    if (!vscode.workspace.isTrusted) {
      // Over every member of a sweep (the server's `modules`), not only the plans it sent.
      const modules = plan.modules ?? userModules(plan.plans);
      if (modules.length > 0) return refuse(untrustedModules(name, modules), MANAGE_TRUST);
    }

    const trainer = this.trainer(uri);
    const trainerProblem = checkTrainer(trainer);
    if (trainerProblem) return refuse(trainerProblem, openSetting('rlx.trainer.path'));
    const runsRoot = runsRootFor(uri);
    const folderProblem = checkRunsFolder(runsRoot);
    if (folderProblem) return refuse(folderProblem, openSetting('rlx.runs.folder'));

    const settings = readSettings(uri);
    const base = { trainer, runsRoot, cwd: folderOf(uri), device: settings.device, tensorboard: settings.tensorboard };
    const file = uri.fsPath;
    const seeds = plan.plans[0]?.seeds ?? [];
    let specs: JobSpec[];
    let label: string;
    if (info.kind === 'sweep') {
      // `rlx sweep`, as on the command line: it runs the members as processes of their own, parallel: at a time;
      // progress counts the runs it announces (members times seeds).
      const runs = sweepRuns(plan.plans, plan.count);
      specs = [{ ...base, request: { kind: 'sweep', file, sweep: name, experiment: plan.plans[0]?.experiment ?? name }, runs }];
      label = `sweep ${name} (${plural(runs, 'run')})`;
    } else if (seed !== undefined || seeds.length <= 1) {
      specs = [{ ...base, request: { kind: 'train', file, experiment: name, seed } }];
      label = seed !== undefined ? `${name} seed ${seed}` : name;
    } else {
      // Each seed its own process, so that they train side by side up to rlx.train.maxParallel.
      specs = seeds.map((s) => ({ ...base, request: { kind: 'train', file, experiment: name, seed: s } }));
      label = `${name} (${seeds.length} seeds)`;
    }
    return { ok: true, batch: this.manager.submit(label, specs) };
  }

  /** `rlx train --resume RUN_DIR`: a stopped or crashed run goes on from its last checkpoint. */
  async resume(runDir: string): Promise<TrainOutcome> {
    const run = readRun(runDir);
    const name = `${run.experiment}/${run.runId}`;
    if (run.state === 'running') return refuse(`${name} is still training.`);
    if (run.state === 'finished') return refuse(`${name} has finished: there is nothing to resume.`);
    const uri = vscode.Uri.file(runDir);
    if (!vscode.workspace.isTrusted) {
      const plan = readPlan(runDir);
      const modules = plan ? userModules([plan]) : [];
      if (modules.length > 0) return refuse(untrustedModules(name, modules), MANAGE_TRUST);
    }
    const trainer = this.trainer(uri);
    const trainerProblem = checkTrainer(trainer);
    if (trainerProblem) return refuse(trainerProblem, openSetting('rlx.trainer.path'));
    const runsRoot = path.dirname(path.dirname(runDir));
    const folderProblem = checkRunsFolder(runDir);
    if (folderProblem) return refuse(folderProblem);
    const spec: JobSpec = { request: { kind: 'resume', runDir }, trainer, runsRoot, cwd: folderOf(uri), device: readSettings(uri).device };
    return { ok: true, batch: this.manager.submit(`${name} (resumed)`, [spec]) };
  }

  private trainer(uri: vscode.Uri): TrainerCommand {
    // process.execPath is the editor's Node (Electron run as Node on the desktop, see manager.ts).
    return trainerCommand(readSettings(uri).trainerPath, this.bundledCli, process.execPath, folderOf(uri));
  }
}

function refuse(reason: string, ...actions: Action[]): TrainOutcome {
  void vscode.window.showErrorMessage(reason, ...actions.map((a) => a.title)).then((choice) => actions.find((a) => a.title === choice)?.run());
  return { ok: false, reason };
}

