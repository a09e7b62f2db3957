import type fs from 'node:fs';

const WIDTH = 28;

/**
 * A progress bar on a terminal for an import reading `file`: share of the file's bytes read, rows done
 * and rows per second, redrawn in place on stderr. Nothing is written when stderr is not a terminal.
 */
export function progressBar(file: fs.ReadStream, size: number, out: NodeJS.WriteStream = process.stderr) {
  const started = Date.now();
  const active = out.isTTY === true;
  return {
    update(rows: number): void {
      if (!active) return;
      const share = size > 0 ? Math.min(1, file.bytesRead / size) : 1;
      const filled = Math.round(share * WIDTH);
      const seconds = Math.max(0.001, (Date.now() - started) / 1000);
      const rate = Math.round(rows / seconds).toLocaleString('en-US');
      out.write(`\r[${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${String(Math.floor(share * 100)).padStart(3)}%  ${rows.toLocaleString('en-US')} rows  ${rate} rows/s`);
    },
    done(): void {
      if (active) out.write('\r\x1b[K');
    },
  };
}
