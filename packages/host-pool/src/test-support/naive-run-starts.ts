/**
 * The naive run scan the tests hold `RunNotes` to: index 0, and every index whose slot does not
 * follow the slot before it, in int32 arithmetic as the scan counts (2^31 − 1 runs on into −2^31).
 */
export function naiveRunStarts(call: ArrayLike<number>): number[] {
  const starts: number[] = [];
  for (let i = 0; i < call.length; i++) if (i === 0 || call[i] !== (((call[i - 1] as number) + 1) | 0)) starts.push(i);
  return starts;
}
