import { useEffect, useRef, useState } from 'preact/hooks';
import { call } from '../http/client.ts';
import { compareMolecules, svgDataUrl } from '../chem/chem-client.ts';
import { Depiction } from '../chem/depiction.tsx';
import type { Highlight } from '../chem/protocol.ts';
import { fmt, Spinner } from '../ui/widgets.tsx';
import { labelOf, type ResultRow } from './rows.ts';

const queryValues = new Map<string, Promise<Record<string, number | null>>>();

/** Descriptors and predictions of the query itself (GET /predict_array, once per query). */
function valuesOfQuery(smiles: string): Promise<Record<string, number | null>> {
  let p = queryValues.get(smiles);
  if (!p) {
    p = call<Record<string, unknown[]>>('/predict_array', {
      query: { search_input: [smiles], descriptors: true, properties: true },
    }).then((t) => {
      const out: Record<string, number | null> = {};
      for (const [k, col] of Object.entries(t))
        if (Array.isArray(col) && typeof col[0] === 'number') out[k] = col[0];
      return out;
    });
    queryValues.set(smiles, p);
    p.catch(() => queryValues.delete(smiles));
  }
  return p;
}

/**
 * A hit beside the query: their maximum common substructure highlighted in both (RDKit MCS in
 * the worker), or the server's matched atoms for substructure hits; every value side by side.
 */
export function CompareDialog(props: {
  query: string;
  row: ResultRow;
  highlight?: Highlight;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [pair, setPair] = useState<Awaited<ReturnType<typeof compareMolecules>> | null>(null);
  const [qv, setQv] = useState<Record<string, number | null> | null>(null);
  const { row } = props;
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  useEffect(() => {
    let live = true;
    setPair(null);
    if (!props.highlight && props.query)
      compareMolecules(props.query, row.smiles, 340, 260).then((p) => live && setPair(p));
    if (props.query)
      valuesOfQuery(props.query).then(
        (v) => live && setQv(v),
        () => live && setQv({}),
      );
    return () => {
      live = false;
    };
  }, [row.key, props.query]);
  const keys = Object.keys(row.values).filter((k) => typeof row.values[k] === 'number');
  return (
    <dialog ref={dialog} class="compare-dialog" aria-labelledby="compare-title" onClose={props.onClose}>
      <div class="row">
        <h2 id="compare-title">
          {row.id} <span class="muted">in {row.database}</span>
        </h2>
        <span class="spacer" />
        <button type="button" class="secondary" onClick={() => dialog.current?.close()} autofocus>
          Close
        </button>
      </div>
      <div class="pair">
        <figure>
          {props.highlight ? (
            <Depiction smiles={props.query} width={340} height={260} label="Query structure" />
          ) : pair?.querySvg ? (
            <img
              src={svgDataUrl(pair.querySvg)}
              width={340}
              height={260}
              alt="Query structure, common substructure highlighted"
            />
          ) : (
            <div class="depiction loading" style={{ width: 340, height: 260 }} aria-busy="true" />
          )}
          <figcaption>Query</figcaption>
        </figure>
        <figure>
          {props.highlight ? (
            <Depiction
              smiles={row.smiles}
              width={340}
              height={260}
              highlight={props.highlight}
              label={`Structure of ${row.id}, match highlighted`}
            />
          ) : pair?.hitSvg ? (
            <img
              src={svgDataUrl(pair.hitSvg)}
              width={340}
              height={260}
              alt={`Structure of ${row.id}, common substructure highlighted`}
            />
          ) : (
            <div class="depiction loading" style={{ width: 340, height: 260 }} aria-busy="true" />
          )}
          <figcaption>
            {row.id}
            {row.score !== null && <> · score {fmt(row.score)}</>}
          </figcaption>
        </figure>
      </div>
      <p class="hint">
        {props.highlight
          ? 'Highlighted: the atoms the substructure query matched.'
          : pair
            ? pair.mcsAtoms > 1
              ? `Highlighted: the maximum common substructure (${pair.mcsAtoms} atoms).`
              : 'No common substructure worth highlighting.'
            : 'Finding the maximum common substructure…'}
      </p>
      <p class="smiles-line">
        <code>{row.smiles}</code>
      </p>
      <div class="table-wrap">
        <table class="values">
          <caption class="visually-hidden">Values of the hit and the query</caption>
          <thead>
            <tr>
              <th scope="col">Value</th>
              <th scope="col">{row.id}</th>
              <th scope="col">Query {qv === null && <Spinner label="" />}</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k}>
                <th scope="row">{labelOf(k)}</th>
                <td>{fmt(row.values[k], 4)}</td>
                <td>{fmt(qv?.[k], 4)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </dialog>
  );
}
