import pino from 'pino';

/** The process logger; its level comes from LOG_LEVEL (see src/config.ts). */
export const logger = pino({ level: process.env.LOG_LEVEL || 'info', base: undefined });
