// npm run bundle: one self-contained file per entry point, for shipping (the VS Code extension
// carries these). onnxruntime-node stays external: it is a native module with its own binaries.
import * as esbuild from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

export const ENTRY_POINTS: Record<string, string> = {
  rlx: 'runtime/cli/run.ts',
  server: 'server/main.ts',
};

export async function bundle(outdir = 'dist'): Promise<esbuild.BuildResult> {
  return esbuild.build({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(Object.entries(ENTRY_POINTS)),
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    sourcemap: true,
    external: ['onnxruntime-node'],
    // ESM output still meets CommonJS dependencies that call require().
    banner: { js: "import { createRequire as __rlxCreateRequire } from 'node:module'; const require = __rlxCreateRequire(import.meta.url);" },
    logLevel: 'warning',
    metafile: true,
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await bundle(process.argv[2] ?? 'dist');
  for (const [file, info] of Object.entries(result.metafile!.outputs)) {
    if (file.endsWith('.mjs')) console.log(`${file}  ${(info.bytes / 1024).toFixed(0)} KiB`);
  }
}
