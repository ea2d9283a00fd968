// npm run package: the .vsix a user installs. The package is assembled in a staging folder
// (.tmp/vsix-stage: the manifest, README, .vscodeignore, language files, icons, and fresh
// bundles in its dist/), so packaging never rewrites the dist/ a running editor or test uses.
// The trainer's native dependencies for linux-x64 go to dist/node_modules, where the bundled
// trainer (dist/rlx.mjs) finds them; @vscode/vsce packs without dependency detection and
// .vscodeignore keeps only what the extension needs. Prints the size.
//   npm run package [-- OUT.vsix]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createVSIX } from '@vscode/vsce';
import { bundle } from './bundle.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The platform whose binaries the package carries (a platform-specific extension). */
export const VSIX_TARGET = 'linux-x64';

/**
 * What the bundled trainer loads at run time, per package: onnxruntime-node (the engine, with
 * its linux-x64 binaries), onnxruntime-common (its JS half), esbuild (bundles user env
 * modules) with its linux-x64 binary. Paths relative to each package; * matches within a folder.
 */
export const NATIVE_FILES: Record<string, string[]> = {
  'onnxruntime-node': ['package.json', 'dist/*.js', 'bin/napi-v6/linux/x64/*'],
  'onnxruntime-common': ['package.json', 'dist/cjs/*.js', 'dist/cjs/package.json'],
  esbuild: ['package.json', 'LICENSE.md', 'lib/main.js'],
  '@esbuild/linux-x64': ['package.json', 'bin/esbuild'],
};

/** Copies NATIVE_FILES from node_modules into dist/node_modules (replacing what was there). */
export function stageNativeModules(dist: string): string[] {
  const target = path.join(dist, 'node_modules');
  fs.rmSync(target, { recursive: true, force: true });
  const copied: string[] = [];
  for (const [pkg, patterns] of Object.entries(NATIVE_FILES)) {
    const from = path.join(root, 'node_modules', pkg);
    if (!fs.existsSync(from)) throw new Error(`${pkg} is not installed (npm ci): the trainer needs it`);
    for (const pattern of patterns) {
      const dir = path.dirname(pattern);
      const matcher = new RegExp(`^${path.basename(pattern).replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
      const names = fs.readdirSync(path.join(from, dir)).filter((n) => matcher.test(n) && fs.statSync(path.join(from, dir, n)).isFile());
      if (names.length === 0) throw new Error(`nothing in ${pkg} matches ${pattern}`);
      for (const name of names) {
        const rel = path.join(pkg, dir, name);
        fs.mkdirSync(path.dirname(path.join(target, rel)), { recursive: true });
        fs.copyFileSync(path.join(from, dir, name), path.join(target, rel));
        fs.chmodSync(path.join(target, rel), fs.statSync(path.join(from, dir, name)).mode);
        copied.push(rel);
      }
    }
  }
  return copied;
}

/** What the package holds besides dist/ (filtered again by .vscodeignore). */
const STAGED = ['package.json', 'README.md', 'LICENSE', 'LICENSE.md', 'LICENSE.txt', '.vscodeignore', 'language-configuration.json', 'icons', 'syntaxes', 'snippets'];

export async function packageVsix(out?: string): Promise<{ file: string; bytes: number }> {
  const stage = path.join(root, '.tmp', 'vsix-stage');
  fs.rmSync(stage, { recursive: true, force: true });
  fs.mkdirSync(stage, { recursive: true });
  for (const name of STAGED) {
    if (fs.existsSync(path.join(root, name))) fs.cpSync(path.join(root, name), path.join(stage, name), { recursive: true });
  }
  const dist = path.join(stage, 'dist');
  await bundle(dist);
  const pages = path.join(root, 'out', 'tools', 'bundle-webview.js');
  if (fs.existsSync(pages)) {
    const { bundleWebview } = (await import(pages)) as { bundleWebview(outdir: string): Promise<unknown> };
    await bundleWebview(path.join(dist, 'webview'));
  }
  stageNativeModules(dist);
  const { name, version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { name: string; version: string };
  const file = path.resolve(out ?? path.join(root, `${name}-${version}-${VSIX_TARGET}.vsix`));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const hasLicense = ['LICENSE', 'LICENSE.md', 'LICENSE.txt'].some((f) => fs.existsSync(path.join(stage, f)));
  await createVSIX({
    cwd: stage,
    packagePath: file,
    dependencies: false,
    target: VSIX_TARGET,
    // No public repository or license file yet; package.json declares the license (MIT).
    allowMissingRepository: true,
    skipLicense: !hasLicense,
  });
  return { file, bytes: fs.statSync(file).size };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { file, bytes } = await packageVsix(process.argv[2]);
  console.log(`${path.relative(process.cwd(), file)}  ${(bytes / 1024 / 1024).toFixed(1)} MiB`);
}
