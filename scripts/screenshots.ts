// Screenshots of the web app's main pages for docs/screenshots/ (shown in the README), taken in
// the same headless Chromium as the end-to-end tests at a 1366×768 laptop size.
// Usage: node scripts/screenshots.ts [--url http://127.0.0.1:8000] [--key <API key>] [--out docs/screenshots]
// (the key defaults to data/dev-api-key, which `bash scripts/start.sh` writes).
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { launchChromium } from './browser.ts';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const url = arg('url', 'http://127.0.0.1:8000').replace(/\/$/, '');
const key = arg('key', '') || (await readFile('data/dev-api-key', 'utf8')).trim();
const out = arg('out', 'docs/screenshots');
await mkdir(out, { recursive: true });

const browser = await launchChromium();
try {
  const page = browser.context.pages()[0] ?? (await browser.context.newPage());
  const shot = async (name: string) => {
    await page.waitForLoadState('networkidle');
    await page.screenshot({ path: join(out, `${name}.png`) });
    console.log(`wrote ${join(out, `${name}.png`)}`);
  };
  await page.goto(`${url}/#/account`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Save key' }).click();
  await page.getByText('Today’s usage').waitFor();
  await shot('account');

  await page.goto(`${url}/#/search`);
  await page.getByLabel('Query structure (SMILES)').fill('CC(C)Cc1ccc(C(C)C(=O)O)cc1');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.locator('.grid img.depiction').nth(11).waitFor();
  await shot('search');

  await page.locator('.grid .card').first().click();
  await page.locator('.compare-dialog img').nth(1).waitFor();
  await page.getByText(/Highlighted: the maximum common substructure|No common substructure/).waitFor();
  await shot('compare');
  await page.getByRole('button', { name: 'Close' }).click();

  await page.getByRole('button', { name: 'Draw…' }).click();
  await page.locator('.editor-host canvas').first().waitFor();
  await shot('editor');
  await page.getByRole('button', { name: 'Cancel' }).click();

  await page.getByRole('button', { name: 'Charts' }).click();
  await page.locator('#map-col').selectOption('similarity');
  await page.getByText(/PCA of Morgan fingerprints|visuali/).waitFor();
  await shot('charts');

  await page.getByLabel('Search type').selectOption('substructure');
  await page.getByLabel('Query structure (SMILES)').fill('c1ccc2[nH]ccc2c1');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.locator('.grid img.depiction').nth(7).waitFor();
  await shot('substructure');

  await page.getByLabel('Search type').selectOption('morgan');
  await page.getByLabel('Query structure (SMILES)').fill('CC(=O)Nc1ccc(O)cc1');
  await page.getByText('Larger search as a job').click();
  await page.getByLabel('Neighbours').fill('5000');
  await page.getByRole('button', { name: 'Submit job' }).click();
  await page.getByTestId('job-status').getByText('SUCCESS').waitFor({ timeout: 60_000 });
  await page.locator('.grid img.depiction').nth(7).waitFor();
  await page.getByRole('button', { name: 'Prepare files' }).click();
  await page.getByTestId('download-status').getByText('READY').waitFor({ timeout: 60_000 });
  await page.evaluate('window.scrollTo(0, 0)');
  await shot('job');
  await page.locator('.downloads').scrollIntoViewIfNeeded();
  await shot('job-downloads');

  await page.goto(`${url}/#/runs`);
  await page.getByRole('button', { name: 'Start run' }).click();
  await page.getByTestId('run-status').getByText('completed').waitFor({ timeout: 60_000 });
  await page.locator('.hits img.depiction').nth(5).waitFor();
  await shot('run');
} finally {
  await browser.close();
}
