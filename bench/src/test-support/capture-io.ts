import { tmpdir } from 'node:os';
import type { CliIo } from '../cli/cli-io.js';

/** A CLI's streams kept as strings, relative paths resolved from the temp directory. */
export function captureIo(): CliIo & { stdout: () => string; stderr: () => string } {
  let out = '';
  let err = '';
  return { out: (s) => (out += s), err: (s) => (err += s), baseDir: tmpdir(), tty: false, stdout: () => out, stderr: () => err };
}
