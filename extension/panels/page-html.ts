// The HTML of a panel's page: the dashboard page bundled from webview/ (dist/webview/<page>.js
// and .css, HTML and CSP from webview/html.ts), or, in a build without the pages, a page that
// says so (no script). Everything a page may load lies in dist/webview (localResourceRoots).
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { createNonce, noticePageHtml, pageHtml as bundledPageHtml } from '../../webview/html.js';
import type { PageKind } from '../../webview/protocol.js';

/** The only folder a page may load from. */
export function pageRoot(extensionUri: vscode.Uri): vscode.Uri {
  return vscode.Uri.joinPath(extensionUri, 'dist', 'webview');
}

/**
 * How a panel is created: its page stays loaded while its tab is hidden. Without it, VS Code
 * unloads a hidden webview and rebuilds it on reveal, and a run's page must then take in its
 * whole history again (seconds for a long run) while the tab shows blank; in code-server the
 * rebuild alone took 2-12 s in the editor suite (a new frame waits for its service worker).
 * The cost is the page's memory while hidden: one per open run panel.
 */
export const PANEL_OPTIONS: vscode.WebviewPanelOptions = { retainContextWhenHidden: true };

export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, localResourceRoots: [pageRoot(extensionUri)] };
}

/** A fresh crypto-random nonce per page load: the only scripts the CSP lets run. */
export function makeNonce(): string {
  return createNonce();
}

export function pageHtml(webview: vscode.Webview, extensionUri: vscode.Uri, page: PageKind, title: string, log: (message: string) => void): string {
  const nonce = makeNonce();
  const script = vscode.Uri.joinPath(pageRoot(extensionUri), `${page}.js`);
  const style = vscode.Uri.joinPath(pageRoot(extensionUri), `${page}.css`);
  if (fs.existsSync(script.fsPath) && fs.existsSync(style.fsPath)) {
    try {
      return bundledPageHtml({
        page,
        scriptUri: webview.asWebviewUri(script).toString(),
        styleUri: webview.asWebviewUri(style).toString(),
        nonce,
        cspSource: webview.cspSource,
        title,
      });
    } catch (err) {
      // A page that cannot be served safely must not leave the panel blank.
      log(`the ${page} page could not be built (${(err as Error).message})`);
      return noticePageHtml(title, [`The ${page} page could not be shown: ${(err as Error).message}`, 'The output channel "rlx" has details.']);
    }
  }
  log(`the ${page} page is not in this build (${script.fsPath} is missing)`);
  return noticePageHtml(title, [`The ${page} page is not in this build of the extension (dist/webview/${page}.js is missing).`, 'Build the pages with `npm run bundle` and reload the window.']);
}
