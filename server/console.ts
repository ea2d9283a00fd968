// console.* into the client's log: on stdio, stdout belongs to the protocol, and whatever else
// in the process prints must not corrupt it.
import type { Connection } from 'vscode-languageserver/node';

export function routeConsole(connection: Connection): void {
  const show = (a: unknown): string => {
    if (typeof a === 'string') return a;
    if (a instanceof Error) return a.stack ?? a.message;
    try {
      return JSON.stringify(a) ?? String(a);
    } catch {
      return String(a); // a cycle
    }
  };
  const format = (args: unknown[]) => args.map(show).join(' ');
  console.log = (...args: unknown[]) => connection.console.log(format(args));
  console.info = (...args: unknown[]) => connection.console.info(format(args));
  console.debug = (...args: unknown[]) => connection.console.log(format(args));
  console.warn = (...args: unknown[]) => connection.console.warn(format(args));
  console.error = (...args: unknown[]) => connection.console.error(format(args));
}
