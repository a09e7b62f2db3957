import pino from 'pino';
import { LOG_LEVELS } from './config';

// An invalid LOG_LEVEL is reported by config() (src/config.ts); until then the logger uses `info`.
const level = (LOG_LEVELS as readonly string[]).includes(process.env.LOG_LEVEL ?? '') ? process.env.LOG_LEVEL! : 'info';

/** The process logger; its level comes from LOG_LEVEL (see src/config.ts). */
export const logger = pino({ level, base: undefined });
