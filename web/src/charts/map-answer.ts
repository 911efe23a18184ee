/** Reading the service's GET /visualize answer (pure: no DOM, no worker; tested under Node). */

/** The documented /visualize answer (the part the chart reads). */
interface VisualizeAnswer {
  coordinates: ([number, number] | null)[];
  explained_variance_ratio?: number[];
}

/** x/y lists from a /visualize answer (NaN for rows without coordinates), or null if it is not one. */
export function coordinatesOf(
  body: unknown,
  n: number,
): { x: number[]; y: number[]; explained?: number[] } | null {
  const c = (body as VisualizeAnswer | null)?.coordinates;
  if (!Array.isArray(c) || c.length !== n) return null;
  const at = (p: unknown, k: number) => (Array.isArray(p) && typeof p[k] === 'number' ? p[k] : NaN);
  return {
    x: c.map((p) => at(p, 0)),
    y: c.map((p) => at(p, 1)),
    explained: (body as VisualizeAnswer).explained_variance_ratio,
  };
}
