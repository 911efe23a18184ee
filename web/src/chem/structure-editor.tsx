import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorMessage, Spinner } from '../ui/widgets.tsx';

/**
 * A structure editor in a modal dialog: OpenChemLib's canvas editor (BSD-3-Clause, maintained by
 * cheminfo), loaded on first use only, so the search page does not pay for it. It starts from
 * the typed SMILES and hands back isomeric SMILES.
 */
export function StructureEditor(props: {
  smiles: string;
  onApply: (smiles: string) => void;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<{ getSmiles: () => string; destroy: () => void } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [ready, setReady] = useState(false);
  useEffect(() => {
    dialog.current?.showModal();
    let cancelled = false;
    import('openchemlib').then(
      ({ CanvasEditor, Molecule }) => {
        if (cancelled || !host.current) return;
        const ed = new CanvasEditor(host.current, { initialMode: 'molecule' });
        if (props.smiles.trim()) {
          try {
            ed.setMolecule(Molecule.fromSmiles(props.smiles));
          } catch {
            /* start empty: the typed text is not a SMILES OpenChemLib reads */
          }
        }
        editor.current = {
          getSmiles: () => ed.getMolecule().toIsomericSmiles(),
          destroy: () => ed.destroy(),
        };
        setReady(true);
      },
      (err) => setError(err),
    );
    return () => {
      cancelled = true;
      editor.current?.destroy();
    };
  }, []);
  return (
    <dialog ref={dialog} class="editor-dialog" aria-labelledby="editor-title" onClose={props.onClose}>
      <h2 id="editor-title">Draw a structure</h2>
      {!ready && !error && <Spinner label="Loading the editor…" />}
      <ErrorMessage error={error} />
      <div ref={host} class="editor-host" />
      <div class="row end">
        <button type="button" class="secondary" onClick={() => dialog.current?.close()}>
          Cancel
        </button>
        <button
          type="button"
          disabled={!ready}
          onClick={() => {
            const s = editor.current?.getSmiles() ?? '';
            props.onApply(s);
            dialog.current?.close();
          }}
        >
          Use this structure
        </button>
      </div>
    </dialog>
  );
}
