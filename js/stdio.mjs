// SPDX-License-Identifier: MIT
// stdio.mjs - printf and puts in a module: the few WASI 0.1 functions the C
// library's stdio calls, on the console.
//
// wasi-libc's stdio writes through fd_write, asks fd_fdstat_get whether
// stdout is a terminal (it is, here: so it flushes each line, as a reactor
// module never exits to flush at the end), and closes and seeks through
// fd_close and fd_seek. Nothing else of WASI is given: a module that needs
// more has imports this glue does not satisfy.

const ESUCCESS = 0, EBADF = 8, ESPIPE = 70;
const FILETYPE_CHARACTER_DEVICE = 2;

/** The output of one fd: text cut into lines, each handed to sink. */
class Lines {
  constructor(sink) {
    this.sink = sink;
    this.text = '';
    this.decoder = new TextDecoder(); // (its own: it keeps a split character)
  }

  write(bytes) {
    this.text += this.decoder.decode(bytes, { stream: true });
    const lines = this.text.split('\n');
    this.text = lines.pop();
    for (const line of lines) this.sink(line);
  }

  /** Hands on what is left of a last line. */
  flush() {
    this.text += this.decoder.decode();
    if (this.text) this.sink(this.text);
    this.text = '';
  }
}

/**
 * The "wasi_snapshot_preview1" imports for stdio of the module behind wasm:
 * fd 1 to stdout(line), fd 2 to stderr(line), whole lines; fd 0 reads
 * nothing. flush() hands on unfinished lines.
 */
export function stdio(wasm, { stdout, stderr }) {
  const out = { 1: new Lines(stdout), 2: new Lines(stderr) };
  const view = () => new DataView(wasm.ex.memory.buffer);
  const imports = {
    fd_write(fd, iovs, count, written) {
      const to = out[fd];
      if (!to) return EBADF;
      let n = 0;
      for (let i = 0; i < count; i++) {
        const ptr = view().getUint32(iovs + 8 * i, true), len = view().getUint32(iovs + 8 * i + 4, true);
        to.write(wasm.bytesAt(ptr, len));
        n += len;
      }
      view().setUint32(written, n, true);
      return ESUCCESS;
    },
    fd_fdstat_get(fd, stat) {
      if (fd < 0 || fd > 2) return EBADF;
      // a character device with no rights to seek or tell: a terminal
      new Uint8Array(wasm.ex.memory.buffer, stat, 24).fill(0);
      view().setUint8(stat, FILETYPE_CHARACTER_DEVICE);
      return ESUCCESS;
    },
    fd_seek: (fd) => (fd >= 0 && fd <= 2 ? ESPIPE : EBADF),
    fd_close: (fd) => (fd >= 0 && fd <= 2 ? ESUCCESS : EBADF),
  };
  return { imports, flush: () => { out[1].flush(); out[2].flush(); } };
}
