/**
 * Whether `words[from, to)` all hold one value, asked of one Int32Array many times.
 *
 * Under Node the test is one `memcmp` of the range against itself shifted by a word (equal
 * exactly when each word equals the next), far cheaper a word than a JavaScript loop that reads a
 * word and compares. Elsewhere (no `Buffer`) it is that loop.
 *
 * @internal
 */
export type ConstantRunTest = (from: number, to: number) => boolean;

interface NodeBufferView {
  compare(target: NodeBufferView, targetStart: number, targetEnd: number, sourceStart: number, sourceEnd: number): number;
}

interface NodeBufferClass {
  from(buffer: ArrayBufferLike, byteOffset: number, length: number): NodeBufferView;
}

/** The test for `words`; a range of fewer than two words is constant. */
export function constantRunTest(words: Int32Array): ConstantRunTest {
  const NodeBuffer = (globalThis as unknown as { Buffer?: NodeBufferClass }).Buffer;
  if (NodeBuffer === undefined) {
    return (from, to) => {
      const first = words[from];
      for (let i = from + 1; i < to; i++) if (words[i] !== first) return false;
      return true;
    };
  }
  const bytes = NodeBuffer.from(words.buffer, words.byteOffset, words.byteLength);
  return (from, to) => to - from < 2 || bytes.compare(bytes, 4 * (from + 1), 4 * to, 4 * from, 4 * (to - 1)) === 0;
}
