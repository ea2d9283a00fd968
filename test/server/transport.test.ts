// The server's command line: which transport it talks over, and the `rlx.*` settings it reads.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSettings } from '../../server/settings.js';
import { parseTransport } from '../../server/transport.js';
import { remapUris } from '../../server/uris.js';

test('transports: stdio by default, node-ipc as vscode-languageclient forks, sockets and pipes', () => {
  assert.deepEqual(parseTransport([]), { kind: 'stdio' });
  assert.deepEqual(parseTransport(['--stdio']), { kind: 'stdio' });
  assert.deepEqual(parseTransport(['--node-ipc', '--clientProcessId=42']), { kind: 'node-ipc' });
  assert.deepEqual(parseTransport(['--socket=5007']), { kind: 'socket', port: 5007 });
  assert.deepEqual(parseTransport(['--socket', '5007']), { kind: 'socket', port: 5007 });
  assert.deepEqual(parseTransport(['--pipe=/tmp/rlx.sock']), { kind: 'pipe', name: '/tmp/rlx.sock' });
  assert.throws(() => parseTransport(['--socket=abc']), /--socket needs a port number, got 'abc'/);
});

test('settings: a missing or mistyped value keeps its default', () => {
  assert.deepEqual(parseSettings({ inlayHints: { defaults: false } }), { inlayHints: { defaults: false } });
  assert.deepEqual(parseSettings(undefined), { inlayHints: { defaults: true } });
  assert.deepEqual(parseSettings({ inlayHints: { defaults: 'no' } }), { inlayHints: { defaults: true } });
  assert.deepEqual(parseSettings([1, 2]), { inlayHints: { defaults: true } });
});

test('URIs in results are mapped to the spelling the client uses for its open documents', () => {
  const remap = new Map([['file:///a/x.rlx', 'untitled:x']]);
  const edit = { changes: { 'file:///a/x.rlx': [{ newText: 'N' }], 'file:///a/y.rlx': [] } };
  assert.deepEqual(remapUris(edit, remap), { changes: { 'untitled:x': [{ newText: 'N' }], 'file:///a/y.rlx': [] } });
  assert.deepEqual(remapUris([{ uri: 'file:///a/x.rlx', range: 1 }, { targetUri: 'file:///a/x.rlx' }], remap), [{ uri: 'untitled:x', range: 1 }, { targetUri: 'untitled:x' }]);
  assert.equal(remapUris(edit, new Map()), edit, 'nothing to map: the same object');
});
