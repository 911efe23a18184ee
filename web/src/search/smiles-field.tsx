import { useEffect, useState } from 'preact/hooks';
import { checkSmiles } from '../chem/chem-client.ts';
import { Depiction } from '../chem/depiction.tsx';
import { StructureEditor } from '../chem/structure-editor.tsx';

const EXAMPLES: [string, string][] = [
  ['Aspirin', 'CC(=O)Oc1ccccc1C(=O)O'],
  ['Caffeine', 'Cn1c(=O)c2c(ncn2C)n(C)c1=O'],
  ['Ibuprofen', 'CC(C)Cc1ccc(C(C)C(=O)O)cc1'],
  ['Paracetamol', 'CC(=O)Nc1ccc(O)cc1'],
  ['Nicotine', 'CN1CCC[C@H]1c1cccnc1'],
];

/** The query: typed or pasted SMILES with a live depiction, examples and a structure editor. */
export function SmilesField(props: {
  value: string;
  onChange: (s: string) => void;
  smarts?: boolean;
  error?: string;
}) {
  const [valid, setValid] = useState<boolean | null>(null);
  const [editing, setEditing] = useState(false);
  const [shown, setShown] = useState(props.value);
  useEffect(() => {
    // Debounced so typing does not queue a depiction per keystroke.
    const t = setTimeout(() => setShown(props.value), 250);
    return () => clearTimeout(t);
  }, [props.value]);
  useEffect(() => {
    let live = true;
    if (!shown.trim() || props.smarts) setValid(null);
    else
      checkSmiles(shown).then(
        (r) => live && setValid(r.ok),
        () => live && setValid(null),
      );
    return () => {
      live = false;
    };
  }, [shown, props.smarts]);
  const describedBy = ['smiles-hint', props.error ? 'search-error' : ''].filter(Boolean).join(' ');
  return (
    <div class="field smiles-field">
      <label for="smiles">Query structure ({props.smarts ? 'SMARTS' : 'SMILES'})</label>
      <textarea
        id="smiles"
        rows={2}
        value={props.value}
        spellcheck={false}
        autocapitalize="off"
        aria-invalid={valid === false || Boolean(props.error)}
        aria-describedby={describedBy}
        onInput={(e) => props.onChange(e.currentTarget.value)}
      />
      <div class="row">
        <label class="visually-hidden" for="example">
          Example molecules
        </label>
        <select
          id="example"
          value=""
          onChange={(e) => {
            if (e.currentTarget.value) props.onChange(e.currentTarget.value);
          }}
        >
          <option value="">Examples…</option>
          {EXAMPLES.map(([name, s]) => (
            <option value={s} key={name}>
              {name}
            </option>
          ))}
        </select>
        <button type="button" class="secondary" onClick={() => setEditing(true)}>
          Draw…
        </button>
      </div>
      <div class="query-depiction" aria-live="polite">
        {shown.trim() && !props.smarts ? (
          <Depiction smiles={shown} width={300} height={170} label={`Query structure ${shown}`} />
        ) : (
          <div class="depiction placeholder" style={{ width: 300, height: 170 }}>
            {props.smarts ? 'SMARTS queries are matched on the server' : 'Type or draw a structure'}
          </div>
        )}
      </div>
      <p id="smiles-hint" class={`hint ${valid === false ? 'warn' : ''}`}>
        {valid === false
          ? 'RDKit cannot read this SMILES; the search will say why.'
          : valid
            ? 'Valid structure.'
            : 'Paste a SMILES, pick an example or draw.'}
      </p>
      {editing && (
        <StructureEditor smiles={props.value} onApply={props.onChange} onClose={() => setEditing(false)} />
      )}
    </div>
  );
}
