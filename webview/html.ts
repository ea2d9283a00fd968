// The HTML document of a dashboard page, with its Content-Security-Policy. The extension calls
// pageHtml() when it creates or revives a panel; the test harness calls it too, so the pages are
// tested under the policy they ship with. Runs in the extension host (Node): no DOM here.
import type { PageKind } from './protocol.js';

export interface PageHtmlOptions {
  page: PageKind;
  /** webview.asWebviewUri(dist/webview/<page>.js), as a string. */
  scriptUri: string;
  /** webview.asWebviewUri(dist/webview/<page>.css), as a string. */
  styleUri: string;
  /** A fresh random value per rendering (createNonce()); only scripts carrying it run. */
  nonce: string;
  /** webview.cspSource: the origin the bundle's files are served from. */
  cspSource: string;
  title: string;
}

/**
 * The policy the pages need and nothing more: no network, no inline script, no eval, scripts
 * only with the nonce, stylesheets from the bundle folder. The pages set styles through the
 * CSSOM (element.style, which CSP allows) and the component library adopts constructed
 * stylesheets, so no 'unsafe-inline' is needed. The one <style> element anything creates is
 * FAST's feature test for :focus-visible (in the component library), which takes its nonce
 * from <meta property="csp-nonce">: hence the nonce in style-src too. Images are canvases, and
 * data: URLs for the recorded frames of envs that render (the host reads the PNGs and posts
 * them); fonts are the editor's.
 */
export function contentSecurityPolicy(nonce: string, cspSource: string): string {
  return [`default-src 'none'`, `script-src 'nonce-${nonce}'`, `style-src ${cspSource} 'nonce-${nonce}'`, `img-src data:`].join('; ') + ';';
}

const NONCE = /^[A-Za-z0-9+/=_-]{16,}$/;

export function pageHtml(options: PageHtmlOptions): string {
  const { page, scriptUri, styleUri, nonce, cspSource, title } = options;
  // A nonce that could break out of the attribute, or a guessable one, defeats the policy.
  if (!NONCE.test(nonce)) throw new Error(`pageHtml: the nonce must be at least 16 base64 characters (use createNonce()), got '${nonce}'`);
  // webview.cspSource is a source list such as `'self' https://*.vscode-cdn.net`: spaces and
  // quotes are normal; a ';' or a line break would start another directive, so refuse those.
  if (/[;\r\n"]/.test(cspSource)) throw new Error(`pageHtml: cspSource '${cspSource}' is not a source list (pass webview.cspSource)`);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(contentSecurityPolicy(nonce, cspSource))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<meta property="csp-nonce" content="${attr(nonce)}">
<link rel="stylesheet" href="${attr(styleUri)}">
<title>${text(title)}</title>
</head>
<body data-page="${attr(page)}">
<main id="root" aria-busy="true"><p class="loading">Loading ${text(title)}…</p></main>
<script nonce="${attr(nonce)}" src="${attr(scriptUri)}"></script>
</body>
</html>
`;
}

/**
 * A page with a message and no script (its policy allows nothing at all): what a panel shows
 * when the pages are not in the build (`npm run bundle` makes dist/webview) or cannot be served.
 */
export function noticePageHtml(title: string, lines: readonly string[]): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none';">
<title>${text(title)}</title>
</head>
<body>
<main>${lines.map((line) => `<p>${text(line)}</p>`).join('')}</main>
</body>
</html>
`;
}

/** 32 random bytes as base64: what a script must carry to run in the page. */
export function createNonce(): string {
  const bytes = new Uint8Array(32);
  globalThis.crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}

function text(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function attr(value: string): string {
  return text(value).replace(/"/g, '&quot;');
}
