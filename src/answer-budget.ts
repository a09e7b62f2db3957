/** One answer being read: its bytes so far, and how to cut it off. */
interface Reading {
  bytes: number;
  cut(err: Error): void;
}

/**
 * The bytes of the answers a process is reading at once from one kind of peer (the search engine, the
 * geocoder), bounded together: when a chunk takes the sum past `maxBytes`, the largest answer being read
 * is cut off (an answer larger than the bound alone, or the one flooding the others), until the sum fits
 * again. The peers' real answers are small, so only a broken or hostile peer reaches it; however many
 * requests read its answers at once, they cannot fill the process's memory.
 */
export class AnswerBudget {
  private readonly reading = new Set<Reading>();
  private held = 0;

  /** `peer`: who answers, for the messages (`the engine`). */
  constructor(
    readonly maxBytes: number,
    private readonly peer: string,
  ) {}

  /** The bytes of the answers being read (for tests). */
  get bytes(): number {
    return this.held;
  }

  /** An answer starts: `add` counts its chunks, `end` releases them (once its reading is over, however). */
  open(cut: (err: Error) => void): { add(bytes: number): void; end(): void } {
    const reading: Reading = { bytes: 0, cut };
    this.reading.add(reading);
    return {
      add: (bytes) => {
        if (!this.reading.has(reading)) return;
        reading.bytes += bytes;
        this.held += bytes;
        this.fit();
      },
      end: () => this.release(reading),
    };
  }

  private fit(): void {
    while (this.held > this.maxBytes) {
      let largest: Reading | undefined;
      for (const r of this.reading) if (!largest || r.bytes > largest.bytes) largest = r;
      if (!largest) return;
      const alone = largest.bytes > this.maxBytes;
      this.release(largest);
      largest.cut(
        new Error(
          alone
            ? `${this.peer}'s answer is larger than ${this.maxBytes} bytes`
            : `${this.peer}'s answers being read hold more than ${this.maxBytes} bytes together; the largest (${largest.bytes} bytes) is cut off`,
        ),
      );
    }
  }

  private release(reading: Reading): void {
    if (!this.reading.delete(reading)) return;
    this.held -= reading.bytes;
  }
}
