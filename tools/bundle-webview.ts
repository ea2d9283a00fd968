// The webview pages, bundled for the browser: dist/webview/<page>.js (an IIFE: the webview
// loads it with a plain <script nonce>) and dist/webview/<page>.css, everything inside (uPlot,
// the component library, shared code), nothing fetched at run time. The extension serves this
// folder as the panels' localResourceRoots and builds their HTML with webview/html.ts.
//   npm run build && node out/tools/bundle-webview.js [OUTDIR]
import * as esbuild from 'esbuild';
import { fileURLToPath } from 'node:url';
import type { PageKind } from '../webview/protocol.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

export const WEBVIEW_PAGES: readonly PageKind[] = ['dashboard', 'compare', 'rollouts'];

export async function bundleWebview(outdir = 'dist/webview', overrides: esbuild.BuildOptions = {}): Promise<esbuild.BuildResult> {
  return esbuild.build({
    absWorkingDir: root,
    entryPoints: WEBVIEW_PAGES.flatMap((page) => [
      { in: `webview/${page}/main.ts`, out: page },
      { in: `webview/${page}/style.css`, out: page },
    ]),
    outdir,
    bundle: true,
    platform: 'browser',
    format: 'iife',
    // VS Code 1.100's webviews run Chromium 132 (Electron 34).
    target: 'chrome120',
    minify: true,
    sourcemap: true,
    logLevel: 'warning',
    metafile: true,
    ...overrides,
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await bundleWebview(process.argv[2] ?? 'dist/webview');
  for (const [file, info] of Object.entries(result.metafile!.outputs)) {
    if (!file.endsWith('.map')) console.log(`${file}  ${(info.bytes / 1024).toFixed(0)} KiB`);
  }
}
