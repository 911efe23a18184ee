/**
 * The one file part of a buffered multipart/form-data upload (`curl -F file=@in.csv`, Python
 * requests' `files=`): clients send the envelope, the file area must store only the file's bytes.
 * Plain functions over the already size-limited buffer; errors are 422s naming `body`.
 */
import { validationError } from '../../../platform/errors.ts';

/** True for a multipart/form-data Content-Type header. */
export function isMultipart(contentType: string | undefined): boolean {
  return (contentType ?? '').trim().toLowerCase().startsWith('multipart/form-data');
}

function boundaryOf(contentType: string): string {
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const b = m?.[1] ?? m?.[2];
  if (!b) throw validationError(['header', 'content-type'], 'multipart/form-data without a boundary');
  return b;
}

interface Part {
  headers: string;
  content: Uint8Array;
}

function partsOf(body: Buffer, boundary: string): Part[] {
  const delim = Buffer.from(`--${boundary}`);
  const parts: Part[] = [];
  let at = body.indexOf(delim);
  if (at < 0) throw validationError(['body'], 'multipart body without its boundary');
  for (;;) {
    const start = at + delim.length;
    // "--" after a delimiter closes the body.
    if (body[start] === 0x2d && body[start + 1] === 0x2d) break;
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delim]), start);
    if (next < 0) throw validationError(['body'], 'multipart body is not terminated by its boundary');
    const part = body.subarray(body.indexOf('\r\n', start) + 2, next);
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) throw validationError(['body'], 'multipart part without a header block');
    parts.push({ headers: part.subarray(0, split).toString('latin1'), content: part.subarray(split + 4) });
    at = next + 2;
  }
  return parts;
}

/**
 * The bytes of the single file part (a part with a `filename`); a 422 on `body` when there is
 * none or more than one, so a client never gets a stored envelope or a silently dropped file.
 */
export function multipartFile(
  body: Uint8Array,
  contentType: string,
): { bytes: Uint8Array; filename: string } {
  const buf = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const files = partsOf(buf, boundaryOf(contentType)).flatMap((p) => {
    const m = /content-disposition:[^\r\n]*;\s*filename="([^"]*)"/i.exec(p.headers);
    return m ? [{ bytes: p.content, filename: m[1] }] : [];
  });
  if (files.length !== 1)
    throw validationError(
      ['body'],
      `multipart/form-data must carry exactly one file part (e.g. curl -F file=@in.csv), got ${files.length}`,
    );
  return files[0];
}
