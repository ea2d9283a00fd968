// The editor harness's wait for webviews (webview-frames.ts), against a stand-in workbench in
// headless Chromium shaped like code-server's: a webview is a host frame at
// .../webview/browser/pre/index.html that makes its page's frame only after a while (its service
// worker first), and the page says "Loading…" before it draws. A screenshot taken before that
// shows a blank editor; the harness must wait, and say what it saw when it gives up.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { chromiumPath } from './code-server.js';
import { describeWait, waitForWebviewsDrawn, webviewFrames } from './webview-frames.js';

const ORIGIN = 'https://workbench.test';
const HOST = '/stable/static/out/vs/workbench/contrib/webview/browser/pre/index.html';

/** A host page: its page frame after `frameMs`, "Loading…" in it, then `drawn` after `drawMs` (never when negative), a placeholder meanwhile. */
function hostPage(frameMs: number, drawMs: number, drawn: string): string {
  return `<!DOCTYPE html><body><script>
setTimeout(() => {
  const inner = document.createElement('iframe');
  inner.src = 'fake.html';
  inner.onload = () => {
    inner.contentDocument.body.innerText = 'Loading Tiny/run…';
    if (${drawMs} < 0) return;
    // The page's script ran: its own placeholder until the extension answers, then the page.
    setTimeout(() => (inner.contentDocument.body.innerText = 'Waiting for the run’s data from the editor…'), ${drawMs} / 2);
    setTimeout(() => (inner.contentDocument.body.innerText = ${JSON.stringify(drawn)}), ${drawMs});
  };
  document.body.appendChild(inner);
}, ${frameMs});
</script></body>`;
}

let browser: Browser | undefined;
const executable = chromiumPath();

before(async () => {
  if (executable) browser = await chromium.launch({ executablePath: executable, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
});
after(async () => {
  await browser?.close();
});

/** A workbench with one webview on screen (`visible`, its host frame made after `hostMs`) and one hidden behind it. */
async function workbench(visible: { frameMs: number; drawMs: number; hostMs?: number }): Promise<Page> {
  const page = await browser!.newPage();
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.pathname === '/') {
      return route.fulfill({
        contentType: 'text/html; charset=utf-8',
        body: `<!DOCTYPE html><body>
<div style="visibility:hidden"><iframe id="hidden" src="${HOST}?id=b&extensionId=rlx.rlx&frame=0&draw=-1"></iframe></div>
<script>setTimeout(() => {
  const shown = document.createElement('iframe');
  shown.style.cssText = 'width:600px;height:400px';
  shown.src = '${HOST}?id=a&extensionId=rlx.rlx&frame=${visible.frameMs}&draw=${visible.drawMs}';
  document.body.prepend(shown);
}, ${visible.hostMs ?? 0});</script>
</body>`,
      });
    }
    if (url.pathname === HOST) {
      const frameMs = Number(url.searchParams.get('frame'));
      const drawMs = Number(url.searchParams.get('draw'));
      return route.fulfill({ contentType: 'text/html; charset=utf-8', body: hostPage(frameMs, drawMs, 'FINISHED Tiny / run seed 1 Episode return') });
    }
    return route.fulfill({ contentType: 'text/html; charset=utf-8', body: '<!DOCTYPE html><body></body>' });
  });
  await page.goto(`${ORIGIN}/`);
  return page;
}

test('waits until the webview on screen shows its page, past its empty frame and its placeholders', { skip: !executable && 'no chromium' }, async () => {
  // The page comes 3 s after its frame: long enough that a loaded machine still looks before it does.
  const page = await workbench({ frameMs: 3000, drawMs: 1000 });
  await page.waitForSelector('iframe[src*="id=a"]');
  const blank = (await webviewFrames(page)).find((w) => w.visible);
  // What a screenshot taken at once shows: the host frame, no page in it yet.
  assert.deepEqual(blank && { inner: blank.inner, text: blank.text }, { inner: [], text: '' });
  const report = await waitForWebviewsDrawn(page, 10_000, 1);
  assert.equal(report.drawn, true, describeWait(report));
  const shown = report.webviews.filter((w) => w.visible);
  assert.equal(shown.length, 1);
  assert.match(shown[0].text, /Episode return/);
  assert.equal(shown[0].extensionId, 'rlx.rlx');
  // The stages in order: the page's frame, its placeholder, its content.
  assert.ok(report.framedMs !== undefined && report.textMs !== undefined && report.framedMs <= report.textMs && report.textMs < report.waitedMs, describeWait(report));
  await page.close();
});

test('gives up after its timeout and says what the webview showed', { skip: !executable && 'no chromium' }, async () => {
  const page = await workbench({ frameMs: 0, drawMs: -1 });
  const report = await waitForWebviewsDrawn(page, 1_000, 1);
  assert.equal(report.drawn, false);
  assert.match(describeWait(report), /^webviews NOT drawn after \d+ ms \(1 expected on screen; page frame: \d+ ms, first text: \d+ ms\): .*rlx\.rlx visible \[pre\/fake\.html\]: "Loading Tiny\/run…"/);
  await page.close();
});

test('does not wait for a webview that is not on screen', { skip: !executable && 'no chromium' }, async () => {
  const page = await workbench({ frameMs: 0, drawMs: 0 });
  const report = await waitForWebviewsDrawn(page, 10_000, 1);
  assert.equal(report.drawn, true, describeWait(report));
  // The hidden one never draws (it says "Loading…" for ever) and is listed as hidden.
  assert.match(describeWait(report), /rlx\.rlx hidden \[pre\/fake\.html\]: "Loading Tiny\/run…"/);
  await page.close();
});

test('waits for the webviews the suite expects on screen before their host frames exist', { skip: !executable && 'no chromium' }, async () => {
  const page = await workbench({ hostMs: 500, frameMs: 0, drawMs: 0 });
  // Nothing on screen yet: a wait that expects no webview has nothing to wait for.
  assert.equal((await webviewFrames(page)).filter((w) => w.visible).length, 0);
  const report = await waitForWebviewsDrawn(page, 10_000, 1);
  assert.equal(report.drawn, true, describeWait(report));
  assert.match(describeWait(report), /^webviews drawn after \d+ ms \(1 expected on screen; .*rlx\.rlx visible \[pre\/fake\.html\]: "FINISHED Tiny/);
  await page.close();
});
