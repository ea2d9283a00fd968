// What the command line gives the language server beyond the connection: the trainer's Python
// env probes (runtime/envs/python/probe-cache.ts), which the server runs only in a trusted
// workspace (server/python-envs.ts). cli/ is the one place that brings server and runtime together.
import { PythonEnvProbes } from '../runtime/envs/python/probe-cache.js';
import type { ServerServices } from '../server/python-envs.js';

export function serverServices(): ServerServices {
  return { pythonEnvProbes: (onSettled) => new PythonEnvProbes({ onSettled }) };
}
