// Runs the editor suites in a real VS Code without a download: code-server (VS Code 1.100.3 for
// Node 20) on a loopback port, opened in headless Chromium through playwright-core
// (tools/code-server-offline.sh installs both). VS Code calls codeAutomationExit(code)
// on the page when the tests end; the suites ask for the screenshot through files.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { SuiteResults } from '../suite/index.js';
import { describeTiming, describeWait, describeWebviews, shortUrl, waitForWebviewsDrawn, webviewFrames } from './webview-frames.js';

export const CODE_SERVER_VERSION = '4.100.3';

/** Where .ci/run installs code-server (tools/code-server-offline.sh DIR). */
export function codeServerPath(repo: string): string | undefined {
  const candidates = [process.env.RLX_CODE_SERVER, path.join(repo, '.tmp', 'code-server', 'node_modules', '.bin', 'code-server')];
  return candidates.find((c): c is string => !!c && fs.existsSync(c));
}

export function chromiumPath(): string | undefined {
  const candidates = [process.env.RLX_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((c): c is string => !!c && fs.existsSync(c));
}

export interface CodeServerRun {
  /** The mocha exit code VS Code reported (0: every test passed), or null without a report. */
  exitCode: number | null;
  results: SuiteResults | undefined;
  /** code-server's and the page's log, without the offline marketplace noise. */
  log: string;
  /** The screenshots the suites asked for, in order. */
  screenshots: string[];
  /** What the workbench showed at the `workbench` screenshot: status bar items and the side bar's rows. */
  dom: { statusBar: string[]; sideBarRows: string[] } | undefined;
  seconds: number;
}

/** What a screenshot shows, as text (written to the suite beside each screenshot it asked for). */
export interface WorkbenchText {
  statusBar: string[];
  /** The notification toasts on screen, each as one text (message, source, buttons). */
  notifications: string[];
  sideBarRows: string[];
  /** The text of each webview's page (dashboards, comparisons) open in the workbench. */
  webviews: string[];
  /** Whether every webview on screen showed its page when the picture was taken (the harness waits for it). */
  webviewsDrawn: boolean;
  /** What that wait saw, for an assertion's message: how long each stage took, each webview's first words. */
  webviewWait: string;
}

export interface CodeServerOptions {
  codeServer: string;
  chromium: string;
  /** The extension under test (extensionDevelopmentPath). */
  extension: string;
  /** The bundled suites (extensionTestsPath). */
  tests: string;
  workspace: string;
  /** A folder of this run's own: HOME, user data, extensions, results. */
  scratch: string;
  /** Leave Workspace Trust on: the workspace opens in Restricted Mode. */
  trust?: boolean;
  /** Variables for code-server, and through it the extension host and the language server. */
  env?: Record<string, string>;
  grep?: string;
  /** The folder for the screenshots the suites ask for (none taken without it). */
  screenshots?: string;
  timeoutMs?: number;
}

/** Offline, code-server and the workbench look for the marketplace and print this; it means nothing here. */
export function withoutOfflineNoise(log: string): string {
  return log
    .split('\n')
    .filter((line) => !/ENOTFOUND|EAI_AGAIN|getaddrinfo|open-vsx\.org|marketplace\.visualstudio|update\.code\.visualstudio|vscode-unpkg|ERR_NAME_NOT_RESOLVED/i.test(line))
    .join('\n');
}

export async function runInCodeServer(options: CodeServerOptions): Promise<CodeServerRun> {
  const started = Date.now();
  const scratch = options.scratch;
  const home = path.join(scratch, 'home');
  const signals = path.join(scratch, 'signals');
  for (const dir of [home, signals]) fs.mkdirSync(dir, { recursive: true });
  const resultsFile = path.join(scratch, 'results.json');
  const port = await freePort();
  const log: string[] = [];

  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    // Variables of an editor this test may run inside would confuse the one it starts.
    if (!key.startsWith('VSCODE_') && key !== 'ELECTRON_RUN_AS_NODE') env[key] = value;
  }
  Object.assign(env, {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    // Environment variables reach the extension host only through code-server itself.
    RLX_TEST_RESULTS: resultsFile,
    RLX_TEST_SCREENSHOT_DIR: options.screenshots ? signals : '',
    RLX_TEST_GREP: options.grep ?? '',
    // The suites may reload the window here (suite/session.ts): this harness keeps the page's
    // bindings across the reload, and the suites carry their results over it.
    RLX_TEST_CAN_RELOAD: '1',
    ...options.env,
  });
  const args = [
    '--bind-addr', `127.0.0.1:${port}`,
    '--auth', 'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-getting-started-override',
    '--extensions-dir', path.join(scratch, 'extensions'),
    '--user-data-dir', path.join(scratch, 'user-data'),
    ...(options.trust ? [] : ['--disable-workspace-trust']),
    options.workspace,
  ];
  // detached: its own session and process group (setsid), so that one signal ends all of it.
  const server = spawn(options.codeServer, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  server.stdout!.on('data', (d: Buffer) => log.push(d.toString()));
  server.stderr!.on('data', (d: Buffer) => log.push(d.toString()));
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));

  let browser: Browser | undefined;
  const screenshots: string[] = [];
  let dom: CodeServerRun['dom'];
  let exitCode: number | null = null;
  try {
    await waitForHealth(port, server, log, 60_000);
    browser = await chromium.launch({
      executablePath: options.chromium,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    watchPage(page, log);
    let onExit!: (code: number) => void;
    const automationExit = new Promise<number>((resolve) => (onExit = resolve));
    await page.exposeFunction('codeAutomationExit', (code: number) => onExit(code));

    const remote = (p: string) => `vscode-remote://127.0.0.1:${port}${p}`;
    const payload = [
      ['extensionDevelopmentPath', remote(options.extension)],
      ['extensionTestsPath', remote(options.tests)],
    ];
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(options.workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`);

    const deadline = Date.now() + (options.timeoutMs ?? 240_000);
    let done = false;
    void automationExit.then((code) => {
      exitCode = code;
      done = true;
    });
    const request = path.join(signals, 'request');
    while (!done && Date.now() < deadline) {
      if (options.screenshots && fs.existsSync(request)) {
        // The suite names the picture (`workbench` is the one this harness asserts on), and may
        // ask for the mouse over an element of a webview first (a chart's read-out shows on hover).
        const asked = readRequest(fs.readFileSync(request, 'utf8'));
        const name = asked.name;
        fs.rmSync(request);
        // A webview created a moment ago (or revealed, for a panel without retainContextWhenHidden,
        // which loses its frames when hidden) is still being built: its host frame waits for its
        // service worker, then our page loads. The picture waits until every webview
        // on screen shows its page, and the log says what it saw and how long it took.
        const before = describeWebviews(await webviewFrames(page));
        const drawn = await waitForWebviewsDrawn(page, WEBVIEW_DRAWN_MS, asked.webviews);
        const waited = describeWait(drawn);
        log.push(`[harness] screenshot ${name}: at the request: ${before}\n[harness] screenshot ${name}: ${waited}\n`);
        // Beside the suite's figures (figures.log): how long after the request the webviews showed their page.
        if (asked.webviews > 0) fs.appendFileSync(path.join(scratch, 'figures.log'), `[webview] screenshot ${name}: ${describeTiming(drawn)}\n`);
        if (asked.hover) await hoverInWebviews(page, asked.hover);
        const file = path.join(options.screenshots, `${name}.png`);
        fs.mkdirSync(options.screenshots, { recursive: true });
        await page.screenshot({ path: file });
        screenshots.push(file);
        const seen = { ...(await workbenchText(page)), webviewsDrawn: drawn.drawn, webviewWait: waited };
        if (name === 'workbench') dom = { statusBar: seen.statusBar, sideBarRows: seen.sideBarRows };
        // What the picture shows, as text the suite can assert on (helpers.ts screenshot()).
        fs.writeFileSync(path.join(signals, `done-${name}`), JSON.stringify(seen));
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    if (!done) log.push(`\n[harness] no result from VS Code within ${options.timeoutMs ?? 240_000} ms\n`);
  } finally {
    await browser?.close().catch(() => undefined);
    await endGroup(server, exited);
  }
  const results = fs.existsSync(resultsFile) ? (JSON.parse(fs.readFileSync(resultsFile, 'utf8')) as SuiteResults) : undefined;
  const text = withoutOfflineNoise(log.join(''));
  fs.writeFileSync(path.join(scratch, 'code-server.log'), text);
  return { exitCode, results, log: text, screenshots, dom, seconds: (Date.now() - started) / 1000 };
}

/**
 * How long a screenshot waits for the webviews on screen to show their page: up to 12 s seen on
 * a busy 2-core machine, where each new webview's host frame waited for its service worker to
 * take over from the previous webview's (code-server serves every webview from one origin).
 */
const WEBVIEW_DRAWN_MS = 30_000;

/**
 * Into the log: the workbench's and the webviews' console errors and warnings (any message of a
 * webview's own frames: their console is nowhere else), uncaught errors, and requests that
 * failed or answered >= 400, with their URL (a webview's files come through its service worker).
 */
function watchPage(page: Page, log: string[]): void {
  page.on('console', (m) => {
    const where = m.location().url;
    const inWebview = /\/webview\/browser\/pre\//.test(where);
    if (inWebview) log.push(`[webview ${m.type()}] ${m.text()} (${shortUrl(where)})\n`);
    else if (m.type() === 'error' || m.type() === 'warning') log.push(`[page ${m.type()}] ${m.text()}${where ? ` (${shortUrl(where)})` : ''}\n`);
  });
  page.on('pageerror', (err) => log.push(`[page uncaught] ${err.message}\n`));
  page.on('requestfailed', (r) => log.push(`[request failed] ${r.url()}: ${r.failure()?.errorText ?? '?'}\n`));
  page.on('response', (r) => {
    if (r.status() >= 400) log.push(`[response ${r.status()}] ${r.url()}\n`);
  });
}

/** A screenshot request: a name, or JSON `{ name, hover, webviews }` (helpers.ts screenshot()). */
function readRequest(text: string): { name: string; hover?: string; webviews: number } {
  const raw = text.trim();
  const asked = raw.startsWith('{') ? (JSON.parse(raw) as { name: string; hover?: string; webviews?: number }) : { name: raw };
  return { ...asked, name: asked.name.replace(/[^\w-]/g, '_') || 'workbench', webviews: asked.webviews ?? 0 };
}

/** Moves the mouse over the first element matching `selector` in a webview, at 90% of its width. */
async function hoverInWebviews(page: Page, selector: string): Promise<void> {
  for (const frame of page.frames()) {
    if (frame === page.mainFrame() || frame.childFrames().length > 0) continue;
    const target = frame.locator(selector).first();
    const box = (await target.count().catch(() => 0)) > 0 ? await target.boundingBox() : null;
    if (!box) continue;
    await target.hover({ position: { x: Math.floor(box.width * 0.9), y: Math.floor(box.height / 2) } });
    return;
  }
}

/** The workbench's texts a person reads in a screenshot: status bar, notifications, side bar rows, and each webview's page. */
async function workbenchText(page: Page): Promise<Omit<WorkbenchText, 'webviewsDrawn' | 'webviewWait'>> {
  const seen = await page.evaluate(() => {
    const texts = (selector: string) =>
      [...document.querySelectorAll<HTMLElement>(selector)].map((e) => (e.getAttribute('aria-label') ?? e.innerText ?? '').trim()).filter(Boolean);
    return {
      statusBar: texts('.statusbar-item'),
      notifications: [...document.querySelectorAll<HTMLElement>('.notification-toast')].map((e) => e.innerText.trim()).filter(Boolean),
      sideBarRows: texts('.part.sidebar .monaco-list-row'),
    };
  });
  // Only webviews' pages: other innermost frames (the web worker extension host's iframe) have
  // text too, their script's source, which once passed for a webview's blank page.
  const webviews = (await webviewFrames(page)).map((w) => w.text).filter((text) => text !== '');
  return { ...seen, webviews };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

async function waitForHealth(port: number, server: ChildProcess, log: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`code-server exited with code ${server.exitCode} before it served:\n${withoutOfflineNoise(log.join(''))}`);
    const ok = await new Promise<boolean>((resolve) => {
      const req = http.get({ host: '127.0.0.1', port, path: '/healthz', timeout: 1000 }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      });
      req.on('error', () => resolve(false));
      req.on('timeout', () => {
        req.destroy();
        resolve(false);
      });
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`code-server did not answer on 127.0.0.1:${port} within ${timeoutMs} ms:\n${withoutOfflineNoise(log.join(''))}`);
}

/** Ends code-server's whole process group (its extension host and language server with it). */
async function endGroup(server: ChildProcess, exited: Promise<void>): Promise<void> {
  if (server.pid === undefined || server.exitCode !== null) return;
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-server.pid!, s);
    } catch {
      // the group is gone
    }
  };
  signal('SIGTERM');
  const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 5000));
  if ((await Promise.race([exited, timeout])) === 'timeout') signal('SIGKILL');
}
