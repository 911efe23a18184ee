import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import ExcelJS from 'exceljs';
import { writeSyntheticCatalog } from '../../testkit/synthetic-catalog.ts';
import { call, stackEnv, startTestStack, tempDir, waitStatus, type TestStack } from './support/stack.ts';

// Downloads against a real S3-compatible server (moto, from the global setup): multipart upload
// of each format and presigned URLs fetched over HTTP.
let s: TestStack;

beforeAll(async () => {
  const dir = await tempDir('dl-s3-test');
  const catalogDir = join(dir, 'catalogs');
  await writeSyntheticCatalog(catalogDir, 'synth', 30_000, 10_000, 3);
  const prefix = `dls3-${randomBytes(4).toString('hex')}`;
  s = await startTestStack(
    stackEnv(join(dir, 'data'), catalogDir, inject('temporalAddress'), prefix, {
      S3_ENDPOINT: inject('s3Endpoint'),
      S3_BUCKET: `jobs-${randomBytes(4).toString('hex')}`,
      S3_ACCESS_KEY_ID: 'test',
      S3_SECRET_ACCESS_KEY: 'test',
      S3_FORCE_PATH_STYLE: 'true',
    }),
  );
});

afterAll(async () => {
  await s?.stack.stop();
});

describe('downloads to S3', () => {
  it('streams csv, json, xlsx and sdf of a 20,000-row job to S3 and answers presigned URLs', async () => {
    const job = (
      await call(
        s,
        'GET',
        `/submit_molsearch?search_input=${encodeURIComponent('c1ccccc1O')}&search_type=morgan&db_names=synth&n_neighbors=20000`,
        s.keyA,
      )
    ).body;
    expect(await waitStatus(s, s.keyA, job)).toBe('SUCCESS');
    const prep = await call(
      s,
      'POST',
      `/prepare_download?job_name=${job}&file_format=csv,json&file_format=xlsx&file_format=sdf&include_properties=true&include_metadata=true&sim_th=0`,
      s.keyA,
      {},
    );
    expect(prep.status, prep.raw).toBe(200);
    let link = prep.body;
    const until = Date.now() + 120_000;
    while (!['READY', 'FAILURE'].includes(link.status) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 300));
      link = (await call(s, 'GET', `/download_link?download_id=${prep.body.download_id}`, s.keyA)).body;
    }
    expect(link.status, JSON.stringify(link)).toBe('READY');
    const urls = Object.fromEntries(
      link.files.map((f: { format: string; url: string }) => [f.format, f.url]),
    );
    expect(urls.csv).toMatch(/X-Amz-Signature=/);
    const csv = await (await fetch(urls.csv)).text();
    const lines = csv.trim().split(/\r\n/);
    expect(lines).toHaveLength(20_001);
    expect(lines[0].split(',').slice(-2)).toEqual(['job_name', 'query_smiles']);
    const json = JSON.parse(await (await fetch(urls.json)).text());
    expect(json).toHaveLength(20_000);
    expect(json[0].id).toBe(lines[1].split(',')[1]);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(Buffer.from(await (await fetch(urls.xlsx)).arrayBuffer()) as unknown as ArrayBuffer);
    const sheet = wb.worksheets[0];
    expect(sheet.rowCount).toBe(20_001);
    expect(sheet.getRow(1).getCell(5).value).toBe('similarity');
    expect(typeof sheet.getRow(2).getCell(5).value).toBe('number');
    expect(sheet.getRow(2).getCell(6).value).toBe(json[0].in_prop_range);
    const sdf = await (await fetch(urls.sdf)).text();
    const records = sdf.split('$$$$\n').filter((r) => r.trim());
    expect(records).toHaveLength(20_000);
    expect(records[0].split('\n')[0]).toBe(json[0].id);
    expect(records[0]).toContain('M  END');
    expect(records[0]).toContain(`>  <similarity>\n${json[0].similarity}\n`);
  });
});
