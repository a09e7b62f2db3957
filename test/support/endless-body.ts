import type http from 'node:http';

/**
 * Answers 200 with `start` and then a body that never ends: 64 kB chunks written whenever the socket
 * drains, as fast as the client reads, until the client goes away. A hostile or broken peer's answer.
 */
export function endlessBody(res: http.ServerResponse, start: string, headers: http.OutgoingHttpHeaders = { 'content-type': 'application/json' }): void {
  const chunk = Buffer.alloc(65_536, 'a');
  res.writeHead(200, headers);
  res.write(start);
  const more = () => {
    while (!res.destroyed && res.write(chunk));
  };
  res.on('drain', more);
  more();
}
