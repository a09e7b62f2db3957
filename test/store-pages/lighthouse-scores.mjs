// Runs Lighthouse (the npm package, its default mobile configuration) in Debian's Chromium on each URL given
// as an argument and prints one JSON line: [{url, scores: {performance, accessibility, 'best-practices', seo},
// failed, runs, benchmarkIndex}]. A child process of test/store-pages/store-pages.browser.test.ts: Lighthouse
// is an ES module, which the tests' CommonJS cannot load.
//
// The performance score is computed from the load's measured CPU tasks, so a busy machine (CI running other
// suites beside this one) can lower one run. As Lighthouse's own guidance on variability says, a URL whose
// first run falls short of MIN in any category is run twice more and judged on the median run (Lighthouse's
// computeMedianRun: the run closest to the median FCP and TTI). Categories that do not depend on timing
// (accessibility, best practices, SEO) score the same on every run, so a real shortfall still fails.
import lighthouse from 'lighthouse';
import { computeMedianRun } from 'lighthouse/core/lib/median-run.js';
import * as chromeLauncher from 'chrome-launcher';

const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'];
const MIN = 0.95;
const chrome = await chromeLauncher.launch({
  chromePath: process.env.CHROME_PATH || 'chromium',
  chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
  logLevel: 'silent',
});
const run = async (url) => (await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: CATEGORIES })).lhr;
const short = (lhr) => CATEGORIES.some((c) => !(lhr.categories[c].score >= MIN));
const out = [];
try {
  for (const url of process.argv.slice(2)) {
    const runs = [await run(url)];
    if (short(runs[0])) runs.push(await run(url), await run(url));
    const lhr = runs.length === 1 ? runs[0] : computeMedianRun(runs);
    const scores = Object.fromEntries(CATEGORIES.map((c) => [c, lhr.categories[c].score]));
    // The audits that cost points, to say why when a score falls.
    const failed = CATEGORIES.flatMap((c) =>
      lhr.categories[c].auditRefs
        .filter((ref) => ref.weight > 0 && lhr.audits[ref.id].score !== null && lhr.audits[ref.id].score < 1)
        .map((ref) => `${c}: ${ref.id} ${lhr.audits[ref.id].score}`),
    );
    out.push({
      url,
      scores,
      failed,
      runs: runs.map((r) => Object.fromEntries(CATEGORIES.map((c) => [c, r.categories[c].score]))),
      benchmarkIndex: lhr.environment.benchmarkIndex,
      runtimeError: lhr.runtimeError?.message ?? null,
    });
  }
} finally {
  await chrome.kill();
}
process.stdout.write(`${JSON.stringify(out)}\n`);
