/**
 * A violation's transcript: the JSON lines a process provider (`--cmd`, or the module host)
 * exchanged while the shrunk program ran once more, from its `create` to the reply that broke the
 * contract. A `--cmd` author reads what was sent and answered, not the model's calls.
 */
import { describeError, type ModelRunReport } from '../models/run-model.js';
import type { ProviderFault } from '../provider-fault.js';
import { describeThrown } from '../text/describe-thrown.js';
import { inertLine } from '../text/inert-text.js';
import type { BridgeListener } from './process-bridge.js';
import type { ProcessProvider } from './process-provider.js';

/** Characters of one exchanged line shown: a request or reply of a few dozen slots; a longer one is cut with a note. */
export const kTranscriptLineCharsMax = 400;
/** Lines kept from the start of the replay: the `create` and the first commands. */
const kHeadLinesMax = 60;
/** Lines kept from the end: the failing exchange is the last, and what led to it comes just before. */
const kTailLinesMax = 240;
/** The longest transcript (lines), the note of what was left out included: a terminal's worth of scrolling, not a log. */
export const kTranscriptLinesMax = kHeadLinesMax + 1 + kTailLinesMax;

if (kHeadLinesMax < 2) throw new Error('kHeadLinesMax must keep at least the create and its reply');
if (kTailLinesMax < 2) throw new Error('kTailLinesMax must keep at least the failing request and its reply');

/** What a failed campaign reports about its shrunk counterexample. */
type Failure = NonNullable<ModelRunReport['failure']>;

/** A violation's exchange with a process provider, or why there is none to show. */
export interface ViolationTranscript {
  /**
   * True: the replay failed as the campaign's counterexample did, and `lines` are the exchange.
   * False: `lines` is one note saying why no exchange is shown.
   */
  readonly reproduced: boolean;
  /**
   * The lines, each inert and one line: `→ {…}` sent to the provider, `← {…}` its reply, `✗ …`
   * a request that got no usable reply; long ones cut with a note, and at most
   * {@link kTranscriptLinesMax} of them (the start and the end, with a note of what was left out).
   */
  readonly lines: readonly string[];
}

/**
 * The lines a bridge exchanges, kept bounded as they come: the first {@link kHeadLinesMax}, and the
 * last {@link kTailLinesMax}, with a count of what fell in between.
 *
 * Invariants: (1) `tail` is empty while `head` is not full; (2) `tail` never holds more than
 * kTailLinesMax lines; (3) `leftOut` counts exactly the lines dropped from the tail's front.
 */
class TranscriptRecorder {
  private readonly head: string[] = [];
  private readonly tail: string[] = [];
  private leftOut = 0;

  readonly hear: BridgeListener = (direction, line) => {
    const shown = inertLine(line, kTranscriptLineCharsMax);
    this.keep(direction === 'sent' ? `→ ${shown}` : direction === 'received' ? `← ${shown}` : `✗ no reply: ${shown}`);
  };

  private keep(line: string): void {
    if (this.head.length < kHeadLinesMax) {
      this.head.push(line);
      return;
    }
    this.tail.push(line);
    if (this.tail.length > kTailLinesMax) {
      this.tail.shift();
      this.leftOut++;
    }
  }

  lines(): string[] {
    const gap = this.leftOut === 0 ? [] : [`… ${this.leftOut} lines left out …`];
    return [...this.head, ...gap, ...this.tail];
  }
}

/** The provider's fault now (a function, so no narrowing from an earlier read carries over a replay). */
const faultOf = (provider: ProcessProvider): ProviderFault | null => provider.fault;

const note = (text: string): ViolationTranscript => ({ reproduced: false, lines: [inertLine(text, kTranscriptLineCharsMax)] });

/**
 * Runs a violation's shrunk program once more against the same process provider, every line
 * exchanged recorded, and returns the transcript — or, when the replay does not fail the same
 * way (a provider that is not deterministic), a note saying so instead of a misleading exchange.
 * Never throws: what goes wrong with the replay becomes the note.
 *
 * @param provider - the provider the campaign ran against, still open.
 * @param failure - the campaign's shrunk counterexample (its commands as data, its geometry, its rule).
 * @param prepare - decodes the failure's program and returns the run of it (throws what the oracle finds).
 */
export function replayTranscript(provider: ProcessProvider, failure: Failure, prepare: (failure: Failure) => () => void): ViolationTranscript {
  if (provider.fault !== null) return note(`no transcript: the provider had already failed (${provider.fault.message})`);
  if (failure.commands.length !== failure.program.length) return note("no transcript: the shrunk program's commands carry no data, so it cannot be replayed");
  let run: () => void;
  try {
    run = prepare(failure);
  } catch (error) {
    return note(`no transcript: the shrunk program could not be rebuilt for a replay (${describeThrown(error)})`);
  }
  const recorder = new TranscriptRecorder();
  let thrown: { readonly error: unknown } | null = null;
  provider.listen(recorder.hear);
  try {
    run();
  } catch (error) {
    thrown = { error };
  } finally {
    provider.listen(null);
  }
  // Read again: the replay may have broken the bridge (a call that hung, a process that exited).
  const fault = faultOf(provider);
  if (fault !== null) return note(`no transcript: the replay of the shrunk program ended in a provider fault (${fault.message})`);
  if (thrown === null) return note('no transcript: the shrunk program passed when replayed once more, so the provider is not deterministic and a transcript would mislead');
  const again = describeError(thrown.error);
  if (again.rule !== failure.rule || again.errorName !== failure.errorName) {
    return note(`no transcript: the shrunk program failed another way when replayed once more (${again.rule}: ${again.message.split('\n')[0] ?? ''}), so the provider is not deterministic and a transcript would mislead`);
  }
  return { reproduced: true, lines: recorder.lines() };
}

/**
 * Prints a violation's transcript (nothing for a provider in this process): a heading, the lines
 * indented, and a blank line, so the summary that follows stays last.
 *
 * @param print - writes one chunk of text and a newline (the CLI's own, inert output).
 */
export function printTranscript(result: { readonly transcript: ViolationTranscript | null }, print: (text: string) => void): void {
  const transcript = result.transcript;
  if (transcript === null) return;
  if (!transcript.reproduced) {
    print(`${transcript.lines.join('\n')}\n`);
    return;
  }
  print(`transcript: the shrunk program replayed (→ sent to the provider, ← its reply), ${transcript.lines.length} lines:`);
  print(`${transcript.lines.map((line) => `  ${line}`).join('\n')}\n`);
}
