import { useEffect, useState } from 'preact/hooks';
import type { Capabilities } from '../http/capabilities.ts';
import { labelOf, type ResultRow } from '../search/rows.ts';
import { ErrorMessage, Spinner } from '../ui/widgets.tsx';
import { histogram } from './bins.ts';
import { useChart } from './chart.ts';
import { mapOf, type MapData } from './map-data.ts';

const ACCENT = '#1f5f8b';

function Histogram(props: { rows: ResultRow[]; column: string }) {
  const bins = histogram(props.rows.map((r) => r.values[props.column]));
  const labels = bins.counts.map(
    (_, i) => `${bins.edges[i].toPrecision(3)}–${bins.edges[i + 1].toPrecision(3)}`,
  );
  const canvas = useChart(
    () => ({
      type: 'bar',
      data: {
        labels,
        datasets: [{ label: labelOf(props.column), data: bins.counts, backgroundColor: ACCENT }],
      },
      options: {
        maintainAspectRatio: false,
        scales: {
          x: {
            title: { display: true, text: labelOf(props.column) },
            ticks: { maxRotation: 60, autoSkip: true },
          },
          y: { title: { display: true, text: 'molecules' }, beginAtZero: true, ticks: { precision: 0 } },
        },
      },
    }),
    [props.rows, props.column],
  );
  const total = bins.counts.reduce((a, b) => a + b, 0);
  return (
    <figure class="chart">
      <div class="chart-box">
        <canvas
          ref={canvas}
          role="img"
          aria-label={`Histogram of ${labelOf(props.column)} over ${total} molecules`}
        />
      </div>
      <figcaption>
        {labelOf(props.column)}: {total} molecules in {bins.counts.length} bins
        {bins.missing > 0 && `, ${bins.missing} without a value`}
        {total > 0 &&
          `; range ${bins.edges[0].toPrecision(4)} to ${bins.edges[bins.edges.length - 1].toPrecision(4)}`}
        .
      </figcaption>
    </figure>
  );
}

/** Colour from pale to dark blue by the rank of a value within the set. */
function colours(values: (number | null)[]): string[] {
  const finite = values.filter((v): v is number => typeof v === 'number');
  const lo = Math.min(...finite);
  const hi = Math.max(...finite);
  return values.map((v) => {
    if (typeof v !== 'number' || hi === lo) return 'rgba(31,95,139,0.7)';
    const t = (v - lo) / (hi - lo);
    return `rgba(${Math.round(200 - 170 * t)},${Math.round(215 - 120 * t)},${Math.round(235 - 90 * t)},0.9)`;
  });
}

function MapChart(props: {
  rows: ResultRow[];
  data: MapData;
  colour: string;
  onSelect: (r: ResultRow) => void;
}) {
  const points = props.rows.flatMap((r, i) =>
    Number.isFinite(props.data.x[i]) ? [{ x: props.data.x[i], y: props.data.y[i], row: r }] : [],
  );
  const canvas = useChart(
    () => ({
      type: 'scatter',
      data: {
        datasets: [
          {
            label: 'molecules',
            data: points.map((p) => ({ x: p.x, y: p.y })),
            pointBackgroundColor: colours(points.map((p) => p.row.values[props.colour] ?? null)),
            pointRadius: 5,
            pointHoverRadius: 8,
          },
        ],
      },
      options: {
        maintainAspectRatio: false,
        onClick: (_e, els) => els[0] && props.onSelect(points[els[0].index].row),
        plugins: {
          tooltip: {
            callbacks: {
              label: (c) => {
                const r = points[c.dataIndex].row;
                const v = r.values[props.colour];
                return `${r.id}${typeof v === 'number' ? ` · ${labelOf(props.colour)} ${v.toPrecision(3)}` : ''}`;
              },
            },
          },
        },
        scales: {
          x: { title: { display: true, text: 'component 1' } },
          y: { title: { display: true, text: 'component 2' } },
        },
      },
    }),
    [props.rows, props.data, props.colour],
  );
  return (
    <figure class="chart">
      <div class="chart-box">
        <canvas
          ref={canvas}
          role="img"
          aria-label={`2D map of ${points.length} molecules; select one in the structure grid to compare it`}
        />
      </div>
      <figcaption>
        {points.length} molecules, coloured by {labelOf(props.colour)} (darker = higher). {props.data.source}.
        Click a point to compare it with the query.
      </figcaption>
    </figure>
  );
}

/** Histograms of any score or property over the shown rows, and a 2D map of them. */
export function ChartsPanel(props: {
  rows: ResultRow[];
  columns: string[];
  caps: Capabilities;
  onSelect: (r: ResultRow) => void;
}) {
  const [column, setColumn] = useState(props.columns[0] ?? '');
  const [colour, setColour] = useState(props.columns[0] ?? '');
  const [map, setMap] = useState<MapData | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    setMap(null);
    setError(null);
    if (props.rows.length >= 3)
      mapOf(
        props.rows.map((r) => r.smiles),
        props.caps.visualise,
      ).then(
        (m) => live && setMap(m),
        (e) => live && setError(e),
      );
    return () => {
      live = false;
    };
  }, [props.rows]);
  if (!props.columns.length) return <p>No numeric values to chart.</p>;
  return (
    <div class="charts">
      <section aria-labelledby="hist-title">
        <div class="row">
          <h3 id="hist-title">Histogram</h3>
          <label for="hist-col">of</label>
          <select id="hist-col" value={column} onChange={(e) => setColumn(e.currentTarget.value)}>
            {props.columns.map((c) => (
              <option value={c} key={c}>
                {labelOf(c)}
              </option>
            ))}
          </select>
        </div>
        <Histogram rows={props.rows} column={column} />
      </section>
      <section aria-labelledby="map-title">
        <div class="row">
          <h3 id="map-title">Map</h3>
          <label for="map-col">colour by</label>
          <select id="map-col" value={colour} onChange={(e) => setColour(e.currentTarget.value)}>
            {props.columns.map((c) => (
              <option value={c} key={c}>
                {labelOf(c)}
              </option>
            ))}
          </select>
        </div>
        <ErrorMessage error={error} />
        {props.rows.length < 3 ? (
          <p>A map needs at least three molecules.</p>
        ) : map ? (
          <MapChart rows={props.rows} data={map} colour={colour} onSelect={props.onSelect} />
        ) : (
          !error && <Spinner label="Computing the map…" />
        )}
      </section>
    </div>
  );
}
