// A body made of parts written one after the other (a response's `chunks`), built without copying
// the large parts: on a virtual machine the first touch of freshly allocated memory costs several
// milliseconds per megabyte, so concatenating a large cached body into a new buffer for every
// response (or every new revision of a large tree) is the slow part of sending it. Small parts are
// joined, so a body of many small parts is still written as a few chunks.

/** Parts at least this large are kept as they are (by reference); smaller ones are joined. */
const KEEP_AT = 16 * 1024;
/** Joined small parts make a chunk of about this size. */
const JOIN_UP_TO = 64 * 1024;

export class ByteParts {
  private readonly out: Buffer[] = [];
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  push(part: Buffer): this {
    if (!part.length) return this;
    if (part.length >= KEEP_AT) {
      this.flush();
      this.out.push(part);
    } else {
      this.pending.push(part);
      this.pendingBytes += part.length;
      if (this.pendingBytes >= JOIN_UP_TO) this.flush();
    }
    return this;
  }

  /** The parts in order: the large ones as pushed, runs of small ones joined. */
  done(): Buffer[] {
    this.flush();
    return this.out;
  }

  private flush() {
    if (this.pending.length === 1) this.out.push(this.pending[0]);
    else if (this.pending.length) this.out.push(Buffer.concat(this.pending, this.pendingBytes));
    this.pending = [];
    this.pendingBytes = 0;
  }
}
