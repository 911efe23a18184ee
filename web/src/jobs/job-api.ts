import { call, callRaw } from '../http/client.ts';
import type { ResultRow } from '../search/rows.ts';

/** Legacy jobs and downloads as the pages use them (GET /job_info, POST /get_molsearch_page, …). */
export interface JobInfo {
  job_name: string;
  status: string;
  kind: string;
  parameters: Record<string, unknown>;
  created_at: string;
  finished_at: string | null;
  rows: number | null;
  error: string | null;
  progress: { shards_done: number | null; shards_total: number | null };
}

export interface DownloadInfo {
  download_id: string;
  job_name: string;
  status: string;
  formats: string[];
  files: { format: string; url: string | null }[];
  error: string | null;
  created_at: string;
}

export const JOB_TERMINAL = ['SUCCESS', 'FAILURE', 'REVOKED'];
export const DOWNLOAD_TERMINAL = ['READY', 'FAILURE'];
export type PropRanges = Record<string, { min?: number; max?: number }>;

export const jobInfo = (name: string) => call<JobInfo>('/job_info', { query: { job_name: name } });
export const userJobs = () => call<JobInfo[]>('/user_jobs');
export const revokeJob = (name: string) => call('/revoke_job', { method: 'POST', query: { job_name: name } });

/** One page of a job's result as rows (the column-oriented page turned around). */
export async function jobPage(
  name: string,
  o: { page: number; size: number; simTh: number; ranges: PropRanges },
): Promise<{ rows: ResultRow[]; columns: string[] }> {
  const page = await call<Record<string, unknown[]>>('/get_molsearch_page', {
    method: 'POST',
    query: { job_name: name, page_num: o.page, page_size: o.size, include_properties: true, sim_th: o.simTh },
    body: { prop_ranges: o.ranges },
  });
  const ids = (page.id ?? []) as string[];
  const numeric = Object.keys(page).filter((k) => page[k].some((v) => typeof v === 'number'));
  const rows = ids.map((id, i): ResultRow => {
    const values: Record<string, number | null> = {};
    for (const k of numeric) values[k] = (page[k][i] as number | null) ?? null;
    return {
      key: `${page.database[i]}/${id}`,
      id,
      smiles: String(page.smiles[i]),
      database: String(page.database[i]),
      score: (page.similarity?.[i] as number) ?? null,
      values,
      flags: { in_prop_range: Boolean(page.in_prop_range?.[i]) },
    };
  });
  return { rows, columns: numeric.filter((k) => k !== 'similarity') };
}

export const prepareDownload = (
  name: string,
  o: { formats: string[]; properties: boolean; metadata: boolean; simTh: number; ranges: PropRanges },
) =>
  call<DownloadInfo>('/prepare_download', {
    method: 'POST',
    query: {
      job_name: name,
      file_format: o.formats,
      include_properties: o.properties,
      include_metadata: o.metadata,
      sim_th: o.simTh,
    },
    body: { prop_ranges: o.ranges },
  });

export const downloadInfo = (id: string) =>
  call<DownloadInfo>('/download_link', { query: { download_id: id } });

/**
 * Saves a prepared file. Files the API serves itself (/downloads/…) need the key header, so they
 * are fetched and handed to the browser as a blob; presigned object-store links open directly.
 */
export async function saveFile(url: string, filename: string): Promise<void> {
  const u = new URL(url, location.href);
  if (u.pathname.startsWith('/downloads/') && !/X-Amz-/i.test(u.search)) {
    const res = await callRaw(u.pathname, { headers: { accept: '*/*' } });
    const blob = await res.blob();
    const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? filename;
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = name;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
    return;
  }
  const a = document.createElement('a');
  a.href = u.href;
  a.rel = 'noreferrer';
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
}

/** Polls `read` every `ms` until `done`; stops when `signal` aborts. */
export async function pollUntil<T>(
  read: () => Promise<T>,
  done: (t: T) => boolean,
  onValue: (t: T) => void,
  signal: AbortSignal,
  ms = 1000,
): Promise<void> {
  while (!signal.aborted) {
    const v = await read();
    if (signal.aborted) return;
    onValue(v);
    if (done(v)) return;
    await new Promise((r) => setTimeout(r, ms));
  }
}
