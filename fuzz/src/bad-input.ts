/**
 * Input from outside that kvfuzz refuses: a file that is not what it should be (missing, too
 * large, not JSON, the wrong kind or version, values out of range), an output path that cannot be
 * written, a provider's setup that cannot be read. A CLI prints the message as one line and exits 2,
 * having changed nothing. The message names the file or value and the problem.
 */
export class BadInput extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BadInput';
  }
}
