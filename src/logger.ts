import pino from 'pino';
import { safeError } from './safe-error';

/** Serializers of the process logger: errors are written without data (src/safe-error.ts). */
export const logSerializers = { err: safeError };

/** The process logger; its level comes from LOG_LEVEL (see src/config.ts). */
export const logger = pino({ level: process.env.LOG_LEVEL || 'info', base: undefined, serializers: logSerializers });
