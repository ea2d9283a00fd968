// The fallback page's HTML: a strict policy, scripts only with the nonce, the title escaped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contentSecurityPolicy, fallbackPageHtml } from '../../../extension/panels/fallback-page.js';

test('a default-src none policy with the nonce for script and style', () => {
  assert.equal(
    contentSecurityPolicy("'self' https://*.vscode-cdn.net", 'abc123'),
    "default-src 'none'; img-src 'self' https://*.vscode-cdn.net data:; style-src 'self' https://*.vscode-cdn.net 'nonce-abc123'; font-src 'self' https://*.vscode-cdn.net; script-src 'nonce-abc123'",
  );
});

test('every script and style carries the nonce; the title is text', () => {
  const html = fallbackPageHtml({ page: 'rollouts', title: 'Runs <b>&</b>', nonce: 'N0nce', cspSource: 'https://x' });
  const scripts = html.match(/<script[^>]*>/g) ?? [];
  assert.equal(scripts.length, 1);
  assert.ok(scripts.every((s) => s.includes('nonce="N0nce"')));
  assert.ok((html.match(/<style[^>]*>/g) ?? []).every((s) => s.includes('nonce="N0nce"')));
  assert.ok(html.includes('<title>Runs &lt;b&gt;&amp;&lt;/b&gt;</title>'));
  assert.ok(!/ on[a-z]+=/.test(html), 'no inline event handlers (the policy would block them)');
  assert.match(html, /var\(--vscode-foreground\)/, 'theme colours');
  assert.match(html, /postMessage\(\{ type: 'ready', page \}\)/);
});
