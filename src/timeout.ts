/**
 * `promise`'s outcome, or a rejection after `ms` if it has not settled by then (the promise itself goes on;
 * whoever created it bounds what it holds). For a peer that may stop answering: a scrape's statement, a
 * rate-limit command to Redis.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
