import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The HTTP server could not listen (a busy port, an address not on this machine...); one-line message. */
export class ListenError extends Error {}

/**
 * Listens on `port` (`host`: one interface; absent: all of them) and resolves once bound; a failure to
 * bind rejects with a `ListenError` naming the address, instead of a server that never serves.
 */
export function listen(handler: http.RequestListener, port: number, host?: string, configure?: (server: http.Server) => void): Promise<http.Server> {
  const server = http.createServer(handler);
  configure?.(server); // before listening: some settings are read when the server starts listening
  return new Promise((resolve, reject) => {
    const where = `${host ? `${host}:` : 'port '}${port}`;
    server.once('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EADDRINUSE') {
        reject(new ListenError(`Cannot listen on ${where}: port ${port} is already in use (PORT=${port}); stop the other process or choose another PORT`));
      } else if (e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN') {
        reject(new ListenError(`Cannot listen on ${where}: ${host} is not an address of this machine (HOST=${host})`));
      } else if (e.code === 'EACCES') {
        reject(new ListenError(`Cannot listen on ${where}: permission denied (ports below 1024 need privileges); choose another PORT`));
      } else {
        reject(new ListenError(`Cannot listen on ${where}: ${e.message}`));
      }
    });
    server.listen({ port, host }, () => resolve(server));
  });
}

/** The address a listening server is bound to, and a URL to reach it from this machine. */
export function boundAddress(server: http.Server): { address: string; port: number; url: string } {
  const { address, port, family } = server.address() as AddressInfo;
  const shown = family === 'IPv6' ? `[${address}]` : address;
  const anyInterface = address === '::' || address === '0.0.0.0';
  const url = `http://${anyInterface ? 'localhost' : shown}:${port}`;
  return { address: `${shown}:${port}`, port, url };
}

/**
 * Stops accepting connections and waits for in-flight requests to finish, at most `timeoutMs`; then the
 * remaining connections are closed. Idle keep-alive connections are closed as soon as they are idle.
 */
export async function closeServer(server: http.Server, timeoutMs: number): Promise<'drained' | 'timed out'> {
  if (!server.listening) return 'drained';
  let result: 'drained' | 'timed out' = 'drained';
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const idle = setInterval(() => server.closeIdleConnections(), 50);
  const timer = setTimeout(() => {
    result = 'timed out';
    server.closeAllConnections();
  }, timeoutMs);
  await closed;
  clearInterval(idle);
  clearTimeout(timer);
  return result;
}
