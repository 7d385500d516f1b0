// Prefixing every line of a streamed text, as `kubectl logs --prefix` does (`[pod/web/app] `),
// and holding back a partial line so that the lines of several containers followed at once
// never interleave mid-line.

/** LinePrefixer turns chunks into whole prefixed lines; flush() returns what is left. */
export class LinePrefixer {
  private partial = "";

  constructor(private readonly prefix: string) {}

  /** push takes a chunk and returns the complete lines it finished, each prefixed. */
  push(chunk: string): string {
    const text = this.partial + chunk;
    const end = text.lastIndexOf("\n");
    if (end < 0) {
      this.partial = text;
      return "";
    }
    this.partial = text.slice(end + 1);
    return text.slice(0, end).split("\n").map((line) => `${this.prefix}${line}\n`).join("");
  }

  /** flush returns the last, unterminated line (prefixed), if any. */
  flush(): string {
    const rest = this.partial;
    this.partial = "";
    return rest === "" ? "" : this.prefix + rest;
  }
}
