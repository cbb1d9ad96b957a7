// The browser enforces "nothing leaves your machine": the served page may
// connect only to its own origin and to the origins of the ?url= files the
// user asked for; a report (from `tickbook report` or the page's Export
// report) may connect nowhere. Another origin is played by Playwright's
// router (http://files.example serves a file with CORS allowed,
// http://elsewhere.example counts what reaches it): a request the policy
// blocks never reaches the router, and the page reports a
// securitypolicyviolation.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  FIXTURES, checkPrerequisites, tempDir, tickbook, serve, openBrowser, waitForFiles,
} from './harness.mjs';

let tmp, results, server;

before(async () => {
  await checkPrerequisites();
  tmp = await tempDir();
  results = path.join(tmp, 'results');
  await mkdir(results, { recursive: true });
  await copyFile(path.join(FIXTURES, 'samples-3x5.json'), path.join(results, 'samples-3x5.json'));
  server = await serve(results);
});

after(async () => {
  await server?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** Route the two outside origins; `reached` lists every request that got past the policy. */
async function outsideOrigins(context) {
  const reached = [];
  const clocks = await readFile(path.join(FIXTURES, 'run-clocks.json'));
  await context.route('http://files.example/**', (route) => {
    reached.push(route.request().url());
    route.fulfill({ status: 200, body: clocks, headers: { 'content-type': 'application/json', 'access-control-allow-origin': '*' } });
  });
  await context.route('http://elsewhere.example/**', (route) => {
    reached.push(route.request().url());
    route.fulfill({ status: 200, body: '{}', headers: { 'access-control-allow-origin': '*' } });
  });
  return reached;
}

/** fetch(url) from the page: 'ok', or the directive that blocked it. */
async function tryFetch(page, url) {
  return page.evaluate((u) => new Promise((resolve) => {
    const onViolation = (e) => { if (e.blockedURI.startsWith(new URL(u).origin)) resolve(`blocked by ${e.effectiveDirective}`); };
    document.addEventListener('securitypolicyviolation', onViolation, { once: true });
    fetch(u).then(() => resolve('ok'), () => setTimeout(() => resolve('failed without a policy violation'), 500));
  }), url);
}

async function cellsRendered(page) {
  return page.$$eval('section[data-testid$=-cell]', (cells) => cells.map((c) => c.dataset.testid));
}

test('the served page connects to its own origin and to the ?url= origins, nowhere else', { timeout: 120_000 }, async () => {
  const { context, page, problems, close } = await openBrowser(server.url);
  try {
    const reached = await outsideOrigins(context);
    const query = new URLSearchParams([['url', '/results/samples-3x5.json'], ['url', 'http://files.example/run-clocks.json']]);
    const response = await page.goto(`${server.url}?${query}`);
    const header = response.headers()['content-security-policy'];
    assert.match(header, /connect-src 'self' http:\/\/files\.example(;|$)/, header);
    await waitForFiles(page, 2);
    const rows = await page.$$eval('[data-testid=file-row]', (trs) => trs.map((t) => [t.dataset.file, t.dataset.status]));
    assert.deepEqual(rows, [['/results/samples-3x5.json', 'ok'], ['http://files.example/run-clocks.json', 'ok']]);
    const cells = await cellsRendered(page);
    assert.ok(cells.includes('clocks-cell') && cells.includes('samples-cell'), `cells: ${cells}`);

    assert.equal(await tryFetch(page, 'http://elsewhere.example/steal?x=1'), 'blocked by connect-src');
    assert.equal(await tryFetch(page, new URL('/results/samples-3x5.json', server.url).href), 'ok');
    assert.deepEqual(reached, ['http://files.example/run-clocks.json'], 'only the asked-for file left the machine');
    assert.deepEqual(problems.pageErrors, []);
    console.log(`# served policy: ${header}`);
  } finally {
    await close();
  }
});

test('a report connects nowhere: tickbook report and the page\u2019s Export report', { timeout: 180_000 }, async () => {
  const cliReport = path.join(tmp, 'cli-report.html');
  await tickbook(['report', path.join(results, 'samples-3x5.json'), path.join(FIXTURES, 'run-clocks.json'), '-o', cliReport]);

  // The page's export, from a page served with an outside ?url= (its own
  // policy allows that origin; the report it writes must not).
  let exported = path.join(tmp, 'exported-report.html');
  {
    const { context, page, close } = await openBrowser(server.url);
    try {
      await outsideOrigins(context);
      const query = new URLSearchParams([['url', '/results/samples-3x5.json'], ['url', 'http://files.example/run-clocks.json']]);
      await page.goto(`${server.url}?${query}`);
      await waitForFiles(page, 2);
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export-report]')]);
      await download.saveAs(exported);
    } finally {
      await close();
    }
  }

  for (const file of [cliReport, exported]) {
    const url = pathToFileURL(file).href;
    const { context, page, problems, close } = await openBrowser(url);
    try {
      const reached = await outsideOrigins(context);
      await page.goto(url);
      await waitForFiles(page, 2);
      const policy = await page.$eval('meta[http-equiv="Content-Security-Policy"]', (m) => m.content);
      assert.match(policy, /connect-src 'none'/, `${path.basename(file)}: ${policy}`);
      assert.doesNotMatch(policy, /files\.example|'self' http/, policy);
      const cells = await cellsRendered(page);
      assert.ok(cells.includes('clocks-cell') && cells.includes('samples-cell'), `${path.basename(file)} cells: ${cells}`);
      assert.ok(await page.locator('figure.chart svg').count() > 0, 'charts drawn');
      for (const target of ['http://elsewhere.example/steal', 'http://files.example/run-clocks.json']) {
        assert.equal(await tryFetch(page, target), 'blocked by connect-src', `${path.basename(file)}: ${target}`);
      }
      assert.deepEqual(reached, [], `${path.basename(file)}: nothing left the machine`);
      assert.deepEqual(problems.pageErrors, []);
    } finally {
      await close();
    }
  }
});
