// The page HTML the extension serves: a strict CSP with the nonce, nothing else to load; it
// takes VS Code's real webview.cspSource and refuses anything that could inject a directive.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contentSecurityPolicy, createNonce, noticePageHtml, pageHtml } from '../../webview/html.js';

const base = { page: 'dashboard' as const, scriptUri: 'https://file.vscode-cdn.net/dashboard.js', styleUri: 'https://file.vscode-cdn.net/dashboard.css', nonce: 'abcdefghijklmnop0123', title: 'Run' };

test('the policy allows the nonce’s script and the bundle’s styles, nothing else', () => {
  const options = { ...base, nonce: createNonce(), cspSource: 'https://file+.vscode-resource.vscode-cdn.net', title: 'Run <Balance> & co' };
  const html = pageHtml(options);
  const csp = contentSecurityPolicy(options.nonce, options.cspSource);
  assert.equal(csp, `default-src 'none'; script-src 'nonce-${options.nonce}'; style-src ${options.cspSource} 'nonce-${options.nonce}'; img-src data:;`);
  assert.ok(html.includes(`content="${csp}"`));
  assert.ok(html.includes(`<script nonce="${options.nonce}" src="${options.scriptUri}"></script>`));
  assert.ok(html.includes(`<link rel="stylesheet" href="${options.styleUri}">`));
  assert.ok(!/unsafe-(inline|eval)/.test(html));
  assert.equal((html.match(/<script/g) ?? []).length, 1, 'one script, the bundle');
  assert.ok(html.includes('<title>Run &lt;Balance&gt; &amp; co</title>'));
});

test("accepts VS Code's cspSource, a source list with quotes and spaces", () => {
  const html = pageHtml({ ...base, cspSource: "'self' https://*.vscode-cdn.net" });
  assert.match(html, /style-src 'self' https:\/\/\*\.vscode-cdn\.net 'nonce-abcdefghijklmnop0123'/);
  assert.match(html, /default-src 'none'/);
});

test('refuses a cspSource that would add a directive', () => {
  assert.throws(() => pageHtml({ ...base, cspSource: "'self'; script-src *" }), /is not a source list/);
  assert.throws(() => pageHtml({ ...base, cspSource: "'self'\nscript-src *" }), /is not a source list/);
});

test('refuses a nonce that is short or could leave its attribute', () => {
  const cspSource = 'https://file.vscode-cdn.net';
  assert.throws(() => pageHtml({ ...base, cspSource, nonce: 'abc' }), /at least 16 base64 characters/);
  assert.throws(() => pageHtml({ ...base, cspSource, nonce: 'aaaaaaaaaaaaaaaa" onload="x' }), /nonce/);
});

test('nonces are fresh each time', () => {
  const nonces = new Set(Array.from({ length: 100 }, createNonce));
  assert.equal(nonces.size, 100);
  assert.match([...nonces][0], /^[A-Za-z0-9+/=]{44}$/);
});

test('the notice page shows its lines as text and runs nothing', () => {
  const html = noticePageHtml('Runs <b>', ['the page is <missing> & so', 'second']);
  assert.match(html, /content="default-src 'none';"/);
  assert.ok(!/<script|<link|<style/.test(html), 'nothing to load or run');
  assert.ok(html.includes('<title>Runs &lt;b&gt;</title>'));
  assert.ok(html.includes('<p>the page is &lt;missing&gt; &amp; so</p><p>second</p>'));
});
