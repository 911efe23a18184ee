import { randomBytes } from 'node:crypto';

/** Crockford base-32, the ULID alphabet (no I, L, O, U). */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A ULID (26 characters: 48-bit millisecond time, 80 random bits), so ids sort by creation time.
 * Ids made in the same millisecond are not guaranteed ordered among themselves (no monotonic mode).
 */
export function ulid(now: number = Date.now()): string {
  let t = now;
  let time = '';
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const rnd = randomBytes(16);
  let rand = '';
  for (let i = 0; i < 16; i++) rand += ALPHABET[rnd[i] & 31];
  return time + rand;
}

/** Job names: `job_<ULID>`. Also the Temporal workflow id. */
export const newJobName = (): string => `job_${ulid()}`;
/** Download ids: `dl_<ULID>`. Also the Temporal workflow id. */
export const newDownloadId = (): string => `dl_${ulid()}`;

export const JOB_NAME_PATTERN = /^job_[0-9A-HJKMNP-TV-Z]{26}$/;
export const DOWNLOAD_ID_PATTERN = /^dl_[0-9A-HJKMNP-TV-Z]{26}$/;
