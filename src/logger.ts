import pino from 'pino';
import pretty from 'pino-pretty';
import { safeError } from './safe-error';
import { LOG_LEVELS } from './config';
import { currentRequestId } from './observability/request-context';

/** Serializers of the process logger: errors are written without data (src/safe-error.ts). */
export const logSerializers = { err: safeError };

/** `LOG_FORMAT` (see src/config.ts): `auto` is readable and colored on a terminal, JSON otherwise. */
function readable(): boolean {
  const format = process.env.LOG_FORMAT || 'auto';
  return format === 'pretty' || (format === 'auto' && process.stdout.isTTY === true);
}

// An invalid LOG_LEVEL is reported by config() (src/config.ts); until then the logger uses `info`.
const level = (LOG_LEVELS as readonly string[]).includes(process.env.LOG_LEVEL ?? '') ? process.env.LOG_LEVEL! : 'info';

/**
 * The process logger; its level comes from LOG_LEVEL (see src/config.ts). Every line written while a
 * request is served carries its `reqId` (src/observability/request-id.ts).
 */
export const logger = pino(
  {
    level,
    base: undefined,
    serializers: logSerializers,
    mixin: () => {
      const reqId = currentRequestId();
      return reqId ? { reqId } : {};
    },
  },
  readable() ? pretty({ colorize: process.stdout.isTTY === true, singleLine: true, sync: true }) : undefined,
);
