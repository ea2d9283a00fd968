// Python env probes in the language server: running the workspace's Python (to learn a
// gymnasium(...) env's spaces, dsl/semantics/python-env.ts) is allowed only once the client says
// the workspace is trusted (protocol.ts). The probes themselves are the trainer's code, which the
// server does not load: the command line that starts it passes a factory (cli/server-main.ts).
import type { PythonEnvFactsProvider, PythonEnvQuery, PythonEnvRead } from '../dsl/index.js';

/** Makes the provider that runs probes; `onSettled` is called when a probe's answer changes what is known. */
export type PythonEnvProbeFactory = (onSettled: (query: PythonEnvQuery) => void) => PythonEnvFactsProvider;

/** What the host process gives the server beyond the connection. */
export interface ServerServices {
  /** Absent: the server never probes (server/main.ts, which loads none of the trainer). */
  readonly pythonEnvProbes?: PythonEnvProbeFactory;
}

/** The checker's provider in the server: nothing is known (and nothing runs) until the workspace is trusted. */
export class TrustedPythonEnvs implements PythonEnvFactsProvider {
  private inner: PythonEnvFactsProvider | undefined;
  private trusted = false;

  constructor(private readonly factory: PythonEnvProbeFactory | undefined, private readonly onSettled: (query: PythonEnvQuery) => void) {}

  /** Allows probes from now on; false when they were allowed already. */
  trust(): boolean {
    if (this.trusted) return false;
    this.trusted = true;
    return true;
  }

  get isTrusted(): boolean {
    return this.trusted;
  }

  lookup(query: PythonEnvQuery): PythonEnvRead {
    if (!this.trusted || !this.factory) return undefined;
    this.inner ??= this.factory(this.onSettled);
    return this.inner.lookup(query);
  }
}
