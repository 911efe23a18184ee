import { useEffect, useRef, useState } from 'preact/hooks';
import type { Capabilities } from '../http/capabilities.ts';
import { usageChanged } from '../account/usage.ts';
import { ErrorMessage, Spinner } from '../ui/widgets.tsx';
import {
  DOWNLOAD_TERMINAL,
  downloadInfo,
  pollUntil,
  prepareDownload,
  saveFile,
  type DownloadInfo,
  type PropRanges,
} from './job-api.ts';

/** Prepare files of a finished job in any of the service's formats, watch them, fetch them. */
export function DownloadsPanel(props: {
  job: string;
  caps: Capabilities;
  simTh: number;
  ranges: PropRanges;
}) {
  const formats = props.caps.fileFormats.length ? props.caps.fileFormats : ['csv'];
  const [chosen, setChosen] = useState<string[]>([formats[0]]);
  const [properties, setProperties] = useState(true);
  const [metadata, setMetadata] = useState(false);
  const [download, setDownload] = useState<DownloadInfo | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [saving, setSaving] = useState<string | null>(null);
  const stop = useRef<AbortController | null>(null);
  useEffect(() => () => stop.current?.abort(), []);
  const prepare = async (e: Event) => {
    e.preventDefault();
    setError(null);
    stop.current?.abort();
    const ctl = (stop.current = new AbortController());
    try {
      const d = await prepareDownload(props.job, {
        formats: chosen,
        properties,
        metadata,
        simTh: props.simTh,
        ranges: props.ranges,
      });
      setDownload(d);
      await pollUntil(
        () => downloadInfo(d.download_id),
        (x) => DOWNLOAD_TERMINAL.includes(x.status),
        setDownload,
        ctl.signal,
        700,
      );
    } catch (err) {
      setError(err);
    } finally {
      usageChanged();
    }
  };
  const save = async (format: string, url: string) => {
    setSaving(format);
    setError(null);
    try {
      await saveFile(url, `${props.job}.${format}`);
    } catch (err) {
      setError(err);
    } finally {
      setSaving(null);
    }
  };
  return (
    <section class="downloads" aria-labelledby="dl-title">
      <h3 id="dl-title">Downloads</h3>
      <form onSubmit={prepare}>
        <fieldset>
          <legend>Formats</legend>
          <div class="chips">
            {formats.map((f) => (
              <label class="check chip" key={f}>
                <input
                  type="checkbox"
                  checked={chosen.includes(f)}
                  onChange={(e) =>
                    setChosen(e.currentTarget.checked ? [...chosen, f] : chosen.filter((x) => x !== f))
                  }
                />{' '}
                {f.toUpperCase()}
              </label>
            ))}
          </div>
        </fieldset>
        <label class="check">
          <input
            type="checkbox"
            checked={properties}
            onChange={(e) => setProperties(e.currentTarget.checked)}
          />{' '}
          Include properties
        </label>
        <label class="check">
          <input type="checkbox" checked={metadata} onChange={(e) => setMetadata(e.currentTarget.checked)} />{' '}
          Include job metadata
        </label>
        <p class="hint">Uses the similarity threshold and property ranges set above.</p>
        <button
          type="submit"
          disabled={!chosen.length || (download !== null && !DOWNLOAD_TERMINAL.includes(download.status))}
        >
          Prepare files
        </button>
      </form>
      <ErrorMessage error={error} />
      {download && (
        <div class="download-status" aria-live="polite">
          <p>
            Download <code>{download.download_id}</code>:{' '}
            <strong data-testid="download-status">{download.status}</strong>
            {!DOWNLOAD_TERMINAL.includes(download.status) && <Spinner label="preparing" />}
          </p>
          {download.error && <p class="message error">{download.error}</p>}
          <ul class="files">
            {download.files.map((f) =>
              f.url ? (
                <li key={f.format}>
                  <button type="button" onClick={() => save(f.format, f.url!)} disabled={saving !== null}>
                    {saving === f.format ? 'Downloading…' : `Download ${f.format.toUpperCase()}`}
                  </button>
                </li>
              ) : (
                <li key={f.format}>{f.format.toUpperCase()}: not ready</li>
              ),
            )}
          </ul>
        </div>
      )}
    </section>
  );
}
