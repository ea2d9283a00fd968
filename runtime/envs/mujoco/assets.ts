// The MJCF models of Gymnasium's MuJoCo envs (v5), kept beside this module in assets/ (see its
// README for where they come from and their licence), read once per process.
import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Where the bundled models lie: the sources' folder, since tsc copies no XML into out/. This
 * file runs as out/runtime/envs/mujoco/assets.js (the build) or from the sources themselves.
 */
export const MUJOCO_ASSETS = ['../../../../runtime/envs/mujoco/assets', './assets']
  .map((relative) => fileURLToPath(new URL(relative, import.meta.url)))
  .find((dir) => fs.existsSync(`${dir}/hopper.xml`)) ?? fileURLToPath(new URL('./assets', import.meta.url));

const cache = new Map<string, string>();

/** The text of bundled model `file` (e.g. "hopper.xml"). */
export function mujocoAsset(file: string): string {
  let xml = cache.get(file);
  if (xml === undefined) {
    xml = fs.readFileSync(`${MUJOCO_ASSETS}/${file}`, 'utf8');
    cache.set(file, xml);
  }
  return xml;
}
