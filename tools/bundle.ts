// npm run bundle: one self-contained file per entry point, for shipping (the VS Code extension
// carries these). onnxruntime-node stays external: it is a native module with its own binaries;
// so does esbuild, which the trainer runs to bundle user env modules (it finds its own binary).
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

export const ENTRY_POINTS: Record<string, string> = {
  rlx: 'cli/run.ts',
  // The language server with the Python env probes (server/main.ts is the same without them).
  server: 'cli/server-main.ts',
  // The trainer's gradient worker thread (tensor/worker-session.ts finds it next to rlx.mjs).
  'session-worker': 'runtime/tensor/session-worker.ts',
  // Adam's worker threads for large models (tensor/parallel-adam.ts finds it next to rlx.mjs).
  'optim-worker': 'runtime/tensor/optim-worker.ts',
  // The thread that runs a user env module (envs/module-host.ts finds it next to rlx.mjs).
  'module-worker': 'runtime/envs/module-worker.ts',
  // The thread that tries a learner module before it runs (algorithms/module/load.ts finds it next to rlx.mjs).
  'learner-worker': 'runtime/algorithms/module/probe-worker.ts',
};

/** The VS Code extension: CommonJS (.cjs, the package is ESM), `vscode` provided by the editor. */
export const EXTENSION_ENTRY = 'extension/main.ts';

export const NATIVE_EXTERNALS = ['onnxruntime-node', 'esbuild'];

/** Files the bundled trainer reads as they are, copied next to rlx.mjs: the Python env worker (envs/python/python-worker.ts finds it there). */
export const COPIED_FILES: Record<string, string> = { 'python-env-worker.py': 'runtime/envs/python/worker.py', 'code-sandbox.py': 'runtime/rewards/code/sandbox.py' };

export async function bundle(outdir = 'dist'): Promise<esbuild.BuildResult> {
  const [node, extension] = await Promise.all([
    esbuild.build({
      absWorkingDir: root,
      entryPoints: Object.fromEntries(Object.entries(ENTRY_POINTS)),
      outdir,
      outExtension: { '.js': '.mjs' },
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'esm',
      sourcemap: true,
      external: NATIVE_EXTERNALS,
      // ESM output still meets CommonJS dependencies that call require().
      banner: { js: "import { createRequire as __rlxCreateRequire } from 'node:module'; const require = __rlxCreateRequire(import.meta.url);" },
      logLevel: 'warning',
      metafile: true,
    }),
    esbuild.build({
      absWorkingDir: root,
      entryPoints: { extension: EXTENSION_ENTRY },
      outdir,
      outExtension: { '.js': '.cjs' },
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      // Loaded at every activation: smaller is faster (the source map keeps stack traces readable).
      minify: true,
      sourcemap: true,
      external: ['vscode'],
      logLevel: 'warning',
      metafile: true,
    }),
  ]);
  for (const [name, source] of Object.entries(COPIED_FILES)) fs.copyFileSync(path.join(root, source), path.join(path.resolve(root, outdir), name));
  return {
    ...node,
    errors: [...node.errors, ...extension.errors],
    warnings: [...node.warnings, ...extension.warnings],
    metafile: { inputs: { ...node.metafile!.inputs, ...extension.metafile!.inputs }, outputs: { ...node.metafile!.outputs, ...extension.metafile!.outputs } },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await bundle(process.argv[2] ?? 'dist');
  for (const [file, info] of Object.entries(result.metafile!.outputs)) {
    if (/\.[cm]js$/.test(file)) console.log(`${file}  ${(info.bytes / 1024).toFixed(0)} KiB`);
  }
}
