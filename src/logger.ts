import pino, { type Logger } from 'pino';

/** JSON logs on stdout; secrets in headers are redacted wherever they are logged. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'auditcaptcha' },
    redact: ['req.headers.authorization', 'authorization', 'secret', '*.secret'],
  });
}
