import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/** Paths whose values never reach a log line. */
export const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["x-api-key"]',
  'headers.authorization',
  'apiKey',
  'key',
  'secret',
  '*.apiKey',
  '*.secret',
  '*.secretAccessKey',
  'config.s3.secretAccessKey',
  'config.databaseUrl',
];

const CENSOR = '[redacted]';

/**
 * Secrets inside strings, which path redaction cannot reach: keys in query strings (a client may
 * send `?api_key=` or `?key=`), our API keys wherever they are echoed (an error message, a URL),
 * bearer tokens and passwords in URLs. Values are replaced, the names kept, so a line still says
 * what was sent.
 */
const SECRET_PARAMS = [
  'api[_-]?key',
  'x-api-key',
  'key',
  'token',
  'access[_-]?token',
  'secret',
  'password',
  'signature',
  'x-amz-signature',
  'x-amz-credential',
];
const SECRET_PATTERNS: [RegExp, string][] = [
  [new RegExp(`([?&;](?:${SECRET_PARAMS.join('|')})=)[^&#\\s"'<>]*`, 'gi'), `$1${CENSOR}`],
  [/\bms_[A-Za-z0-9_-]{20,}/g, `ms_${CENSOR}`],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${CENSOR}`],
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:)[^@\s/]+@/gi, `$1${CENSOR}@`],
];

/** `text` with every secret the patterns know replaced by [redacted]. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const [re, by] of SECRET_PATTERNS) out = out.replace(re, by);
  return out;
}

/** A copy of `value` with secrets inside its strings redacted (plain objects and arrays; depth-limited). */
function redactDeep(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, depth + 1));
  if (value instanceof Error) return serializeError(value); // a `cause`, an error in an array
  // Other class instances (requests, replies) are left to their serializers.
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = redactDeep(v, depth + 1);
  return out;
}

/** Requests are logged by method and redacted URL only: never headers or bodies. */
function serializeRequest(req: { method?: string; url?: string; ip?: string; hostname?: string }) {
  return { method: req.method, url: redactSecrets(req.url ?? ''), host: req.hostname, remoteAddress: req.ip };
}

function serializeError(err: unknown) {
  const serialized = pino.stdSerializers.err(err as Error) as unknown;
  if (typeof serialized !== 'object' || serialized === null) return redactDeep(serialized);
  // Its own fields (type, message, stack, code, cause...) as a plain object, which redactDeep walks.
  return redactDeep({ ...serialized });
}

/** The one logger factory: JSON lines, pretty only on an interactive terminal. */
export function createLogger(
  opts: { level?: string; name?: string; pretty?: boolean; destination?: DestinationStream } = {},
): Logger {
  const options: LoggerOptions = {
    level: opts.level ?? 'info',
    name: opts.name,
    redact: { paths: REDACT_PATHS, censor: CENSOR },
    serializers: { req: serializeRequest, err: serializeError, error: serializeError },
    // Every other field and the message: secrets inside strings (a URL in a message, say).
    formatters: { log: (obj) => redactDeep(obj) as Record<string, unknown> },
    hooks: {
      logMethod(args, method) {
        method.apply(
          this,
          args.map((a) => (typeof a === 'string' ? redactSecrets(a) : a)) as Parameters<typeof method>,
        );
      },
    },
  };
  if (opts.destination) return pino(options, opts.destination);
  const pretty = opts.pretty ?? Boolean(process.stdout.isTTY);
  if (pretty) {
    return pino({
      ...options,
      transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l' } },
    });
  }
  return pino(options);
}
