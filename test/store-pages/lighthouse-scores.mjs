// Runs Lighthouse (the npm package, its default mobile configuration) in Debian's Chromium on each URL given
// as an argument and prints one JSON line: [{url, scores: {performance, accessibility, 'best-practices', seo}, failed}].
// A child process of test/store-pages/store-pages.browser.test.ts: Lighthouse is an ES module, which the
// tests' CommonJS cannot load.
import lighthouse from 'lighthouse';
import * as chromeLauncher from 'chrome-launcher';

const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'];
const chrome = await chromeLauncher.launch({
  chromePath: process.env.CHROME_PATH || 'chromium',
  chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
  logLevel: 'silent',
});
const out = [];
try {
  for (const url of process.argv.slice(2)) {
    const result = await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: CATEGORIES });
    const lhr = result.lhr;
    const scores = Object.fromEntries(CATEGORIES.map((c) => [c, lhr.categories[c].score]));
    // The audits that cost points, to say why when a score falls.
    const failed = CATEGORIES.flatMap((c) =>
      lhr.categories[c].auditRefs
        .filter((ref) => ref.weight > 0 && lhr.audits[ref.id].score !== null && lhr.audits[ref.id].score < 1)
        .map((ref) => `${c}: ${ref.id} ${lhr.audits[ref.id].score}`),
    );
    out.push({ url, scores, failed, runtimeError: lhr.runtimeError?.message ?? null });
  }
} finally {
  await chrome.kill();
}
process.stdout.write(`${JSON.stringify(out)}\n`);
