import pino, { type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/** Paths whose values never reach a log line. */
export const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'headers["x-api-key"]',
  'apiKey',
  'key',
  '*.apiKey',
  '*.secretAccessKey',
  'config.s3.secretAccessKey',
  'config.databaseUrl',
];

/** The one logger factory: JSON lines, pretty only on an interactive terminal. */
export function createLogger(opts: { level?: string; name?: string; pretty?: boolean } = {}): Logger {
  const options: LoggerOptions = {
    level: opts.level ?? 'info',
    name: opts.name,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
  };
  const pretty = opts.pretty ?? Boolean(process.stdout.isTTY);
  if (pretty) {
    return pino({
      ...options,
      transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l' } },
    });
  }
  return pino(options);
}
