/**
 * The small file formats of the analysis operations' outputs: NumPy .npy matrices and CSV cells.
 * Shared by the synchronous file variants (api/services) and the analysis jobs (activities).
 */

/** A NumPy .npy (format 1.0) of a row-major little-endian float32 matrix, readable by numpy.load. */
export function npyFloat32(rows: number, cols: number, values: Float32Array): Uint8Array {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${rows}, ${cols}), }`;
  // magic (6) + version (2) + header length (2) + header, padded with spaces to a multiple of 64, '\n' last.
  const total = Math.ceil((10 + header.length + 1) / 64) * 64;
  header = header.padEnd(total - 10 - 1, ' ') + '\n';
  const out = new Uint8Array(total + values.byteLength);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0], 0);
  new DataView(out.buffer).setUint16(8, header.length, true);
  out.set(Buffer.from(header, 'latin1'), 10);
  const body = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  out.set(body, total);
  return out;
}

/** One CSV cell (quoted when needed). */
export const csvCell = (v: unknown): string => {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};
