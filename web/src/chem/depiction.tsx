import { useEffect, useState } from 'preact/hooks';
import { depict, svgDataUrl } from './chem-client.ts';
import type { Highlight } from './protocol.ts';

/**
 * A 2D depiction drawn in the browser by RDKit (WebAssembly) and shown as an image: an <img> of
 * an SVG cannot run script, whatever the SMILES held.
 */
export function Depiction(props: {
  smiles: string;
  width?: number;
  height?: number;
  highlight?: Highlight;
  label?: string;
  class?: string;
}) {
  const width = props.width ?? 220;
  const height = props.height ?? 160;
  const [svg, setSvg] = useState<string | null | undefined>(undefined);
  const hl = JSON.stringify(props.highlight ?? null);
  useEffect(() => {
    let live = true;
    setSvg(undefined);
    depict(props.smiles, width, height, props.highlight).then(
      (s) => live && setSvg(s),
      () => live && setSvg(null),
    );
    return () => {
      live = false;
    };
  }, [props.smiles, width, height, hl]);
  const alt = props.label ?? `Structure of ${props.smiles}`;
  if (svg === undefined)
    return (
      <div
        class={`depiction loading ${props.class ?? ''}`}
        style={{ width, height }}
        role="img"
        aria-busy="true"
        aria-label={alt}
      />
    );
  if (svg === null)
    return (
      <div
        class={`depiction invalid ${props.class ?? ''}`}
        style={{ width, height }}
        role="img"
        aria-label={alt}
      >
        cannot draw
      </div>
    );
  return (
    <img
      class={`depiction ${props.class ?? ''}`}
      src={svgDataUrl(svg)}
      width={width}
      height={height}
      alt={alt}
      data-smiles={props.smiles}
    />
  );
}
