// The rlx.* settings, read where they are needed (so a change applies to the next run), and
// where a file's runs go: the runs folder of the workspace folder that holds it.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Device } from './training/command-line.js';

export interface RlxSettings {
  trainerPath: string;
  runsFolder: string;
  device: Device;
  maxParallel: number;
  /** Runs also write TensorBoard event files (`rlx train --tensorboard`). */
  tensorboard: boolean;
  /** What Train does with the new run's dashboard. */
  openDashboardOnTrain: 'open' | 'notify' | 'never';
}

const DEVICES: readonly Device[] = ['auto', 'cpu', 'cuda', 'webgpu'];
const DASHBOARD_ON_TRAIN = ['open', 'notify', 'never'] as const;

export function readSettings(scope?: vscode.Uri): RlxSettings {
  const c = vscode.workspace.getConfiguration('rlx', scope);
  const device = c.get<string>('train.device', 'auto');
  const maxParallel = c.get<number>('train.maxParallel', 2);
  return {
    trainerPath: c.get<string>('trainer.path', '') ?? '',
    runsFolder: (c.get<string>('runs.folder', 'runs') ?? '').trim() || 'runs',
    device: DEVICES.includes(device as Device) ? (device as Device) : 'auto',
    maxParallel: Number.isInteger(maxParallel) && maxParallel >= 1 ? maxParallel : 2,
    tensorboard: c.get<boolean>('train.tensorboard', false) === true,
    openDashboardOnTrain: DASHBOARD_ON_TRAIN.find((v) => v === c.get<string>('openDashboardOnTrain')) ?? 'open',
  };
}

/** The folder a file's relative settings and the trainer's working directory refer to. */
export function folderOf(uri: vscode.Uri): string {
  return vscode.workspace.getWorkspaceFolder(uri)?.uri.fsPath ?? path.dirname(uri.fsPath);
}

/** Where runs of this file go (`rlx train --out`). */
export function runsRootFor(uri: vscode.Uri): string {
  return path.resolve(folderOf(uri), readSettings(uri).runsFolder);
}

/** Every runs folder the Runs view shows: one per workspace folder. */
export function runsRoots(): string[] {
  const roots = (vscode.workspace.workspaceFolders ?? [])
    .filter((f) => f.uri.scheme === 'file')
    .map((f) => path.resolve(f.uri.fsPath, readSettings(f.uri).runsFolder));
  return [...new Set(roots)];
}
