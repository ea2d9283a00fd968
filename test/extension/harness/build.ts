// Bundles the editor suites into one CommonJS file for the extension host (see suite/index.ts),
// and builds what the extension loads from dist/ (the same bundles `npm run package` ships).
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { bundle } from '../../../tools/bundle.js';
import { repoRoot } from '../../helpers/repo.js';

/** out/test/extension-host/index.cjs: the extensionTestsPath. */
export function suitesBundlePath(): string {
  return path.join(repoRoot(), 'out', 'test', 'extension-host', 'index.cjs');
}

export async function buildSuites(): Promise<string> {
  const outfile = suitesBundlePath();
  await esbuild.build({
    absWorkingDir: repoRoot(),
    entryPoints: ['test/extension/suite/index.ts'],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    // vscode comes from the extension host; mocha from node_modules, as a runner would load it.
    external: ['vscode', 'mocha'],
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  return outfile;
}

/**
 * dist/: the extension, server and trainer bundles, and the dashboard pages when they build.
 * Returns a note when the pages are missing.
 */
export async function buildExtension(): Promise<string | undefined> {
  const dist = path.join(repoRoot(), 'dist');
  await bundle(dist);
  const pages = path.join(repoRoot(), 'out', 'tools', 'bundle-webview.js');
  if (!fs.existsSync(pages)) return 'no dashboard pages (tools/bundle-webview.ts): panels show the metrics list';
  try {
    const { bundleWebview } = (await import(pages)) as { bundleWebview(outdir: string): Promise<unknown> };
    await bundleWebview(path.join(dist, 'webview'));
    return undefined;
  } catch (err) {
    // The pages have tests of their own; the extension works without them (the fallback page).
    return `the dashboard pages did not build (${(err as Error).message}): panels show the metrics list`;
  }
}
