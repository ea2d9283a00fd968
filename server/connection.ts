// The edge of the server: opens the connection on the transport the command line names and wires
// the handlers, one module per concern (handlers/). Only the handlers talk LSP; each request
// finds its document, waits until it is analysed, calls the feature (a pure function of a
// DocumentContext) and converts the answer to what the client can take (handlers/session.ts).
import {
  createConnection,
  createServerPipeTransport,
  createServerSocketTransport,
  IPCMessageReader,
  IPCMessageWriter,
  LSPErrorCodes,
  ProposedFeatures,
  ResponseError,
  StreamMessageWriter,
  type Connection,
  type ConnectionOptions,
  type RequestMessage,
} from 'vscode-languageserver/node';
import { routeConsole } from './console.js';
import { FramedMessageReader } from './framing.js';
import { registerCompletion } from './handlers/completion.js';
import { registerDocuments } from './handlers/documents.js';
import { registerEditing } from './handlers/editing.js';
import { registerExperiments } from './handlers/experiments.js';
import { registerLifecycle } from './handlers/lifecycle.js';
import { registerNavigation } from './handlers/navigation.js';
import { registerPresentation } from './handlers/presentation.js';
import { Session } from './handlers/session.js';
import type { ServerServices } from './python-envs.js';
import { parseTransport, type Transport } from './transport.js';

/** Starts the server on the transport its arguments name (stdio by default); `services`: what the host adds (Python env probes). */
export function startServer(argv: readonly string[], services: ServerServices = {}): Connection {
  const connection = openConnection(parseTransport(argv));
  serve(connection, services);
  connection.listen();
  return connection;
}

// A request the client cancels while it still waits in the queue is answered at once, without
// running its handler (jsonrpc's default would run it anyway).
const CONNECTION_OPTIONS: ConnectionOptions = {
  connectionStrategy: {
    cancelUndispatched: (message) => ({
      jsonrpc: '2.0',
      id: (message as RequestMessage).id,
      error: new ResponseError(LSPErrorCodes.RequestCancelled, 'request cancelled').toJson(),
    }),
  },
};

function openConnection(transport: Transport): Connection {
  switch (transport.kind) {
    case 'stdio':
      return stdioConnection();
    case 'node-ipc':
      return createConnection(ProposedFeatures.all, new IPCMessageReader(process), new IPCMessageWriter(process), CONNECTION_OPTIONS);
    case 'socket': {
      const [reader, writer] = createServerSocketTransport(transport.port);
      return createConnection(ProposedFeatures.all, reader, writer, CONNECTION_OPTIONS);
    }
    case 'pipe': {
      const [reader, writer] = createServerPipeTransport(transport.name);
      return createConnection(ProposedFeatures.all, reader, writer, CONNECTION_OPTIONS);
    }
  }
}

/**
 * stdio, read through framing.ts so that a malformed message gets an error reply and the server
 * reads on. The library exits when stdin closes only when it reads the stream itself; that exit
 * is kept here: status 0 after a shutdown request, 1 without one, as the protocol says.
 */
function stdioConnection(): Connection {
  const writer = new StreamMessageWriter(process.stdout);
  let shutdownRequested = false;
  const reader = new FramedMessageReader(process.stdin, {
    onMalformed: (reply) => void writer.write(reply),
    onMessage: (message) => {
      if ((message as RequestMessage).method === 'shutdown') shutdownRequested = true;
    },
  });
  const exit = () => process.exit(shutdownRequested ? 0 : 1);
  process.stdin.on('end', exit);
  process.stdin.on('close', exit);
  return createConnection(ProposedFeatures.all, reader, writer, CONNECTION_OPTIONS);
}

function serve(connection: Connection, services: ServerServices): void {
  const session = new Session(connection, services);
  routeConsole(connection);
  process.on('uncaughtException', (err) => session.logError('uncaught exception', err));
  process.on('unhandledRejection', (err) => session.logError('unhandled rejection', err));

  registerLifecycle(session);
  registerDocuments(session);
  registerNavigation(session);
  registerEditing(session);
  registerCompletion(session);
  registerPresentation(session);
  registerExperiments(session);
}
