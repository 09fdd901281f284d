import { describe, expect, it } from 'vitest';
import { LedgerViolation } from '../ledger/ledger-violation.js';
import { ProviderFault } from '../provider-fault.js';
import type { ModelRunReport } from '../models/run-model.js';
import type { BridgeListener } from './process-bridge.js';
import type { ProcessProvider } from './process-provider.js';
import { kTranscriptLineCharsMax, kTranscriptLinesMax, printTranscript, replayTranscript } from './transcript.js';

/** A stand-in for a process provider: what the replay sees of it is its fault and its listener. */
class FakeProvider {
  fault: ProviderFault | null = null;
  listener: BridgeListener | null = null;
  listen(listener: BridgeListener | null): void {
    this.listener = listener;
  }
  /** One request and its reply, as the bridge would report them. */
  exchange(request: string, reply: string): void {
    this.listener?.('sent', request);
    this.listener?.('received', reply);
  }
}

const failure: NonNullable<ModelRunReport['failure']> = {
  path: '0',
  geometry: {},
  commands: [{ op: 'alloc', args: [1] }],
  program: ['alloc(1)'],
  errorName: 'LedgerViolation',
  message: '[double-free] …',
  rule: 'double-free',
  contractRule: null,
};

const violation = (): LedgerViolation => new LedgerViolation('double-free', 'freed twice');
const replay = (provider: FakeProvider, run: () => void) => replayTranscript(provider as unknown as ProcessProvider, failure, () => run);

describe('fuzz:validate,transcript', () => {
  it('shows the exchange of a replay that fails the same way, the failing reply last, and stops listening', () => {
    const provider = new FakeProvider();
    const t = replay(provider, () => {
      provider.exchange('{"op":"create"}', '{"ok":true,"pageSize":1,"numPages":4}');
      provider.exchange('{"op":"free","indices":[1]}', '{"ok":true}');
      throw violation();
    });
    expect(t).toEqual({ reproduced: true, lines: ['→ {"op":"create"}', '← {"ok":true,"pageSize":1,"numPages":4}', '→ {"op":"free","indices":[1]}', '← {"ok":true}'] });
    expect(provider.listener).toBeNull();
  });

  it('keeps the start and the end of a long exchange, says what it left out, and cuts long lines', () => {
    const provider = new FakeProvider();
    const pairs = 1_000;
    const t = replay(provider, () => {
      for (let i = 0; i < pairs; i++) provider.exchange(`{"op":"alloc","i":${i}}`, `{"ok":true,"indices":[${'7,'.repeat(600)}${i}]}`);
      throw violation();
    });
    expect(t.reproduced).toBe(true);
    expect(t.lines).toHaveLength(kTranscriptLinesMax);
    expect(t.lines[0]).toBe('→ {"op":"alloc","i":0}');
    expect(t.lines.filter((line) => /^… \d+ lines left out …$/.test(line))).toHaveLength(1);
    const kept = t.lines.length - 1;
    expect(t.lines).toContain(`… ${2 * pairs - kept} lines left out …`);
    expect(t.lines.at(-2)).toBe(`→ {"op":"alloc","i":${pairs - 1}}`);
    const last = t.lines.at(-1) ?? '';
    expect(last.startsWith('← {"ok":true,"indices":[7,7,')).toBe(true);
    expect(last).toMatch(/… \(\d+ more characters\)$/);
    expect(last.length).toBeLessThan(kTranscriptLineCharsMax + 40);
  });

  it('makes every line inert: control characters escaped, one line each', () => {
    const provider = new FakeProvider();
    const t = replay(provider, () => {
      provider.exchange('{"op":"alloc"}', '{"ok":false,"error":"\u001b[31mred\nnext line"}');
      throw violation();
    });
    expect(t.lines[1]).toBe('← {"ok":false,"error":"\\e[31mred\\nnext line"}');
  });

  it.each([
    ['passes', () => {}, /^no transcript: the shrunk program passed when replayed once more, so the provider is not deterministic/],
    ['fails another way', () => { throw new LedgerViolation('leak', 'pages left'); }, /^no transcript: the shrunk program failed another way when replayed once more \(leak: \[leak\] pages left\)/],
  ])('says so instead of showing an exchange when the replay %s', (_what, run, message) => {
    const provider = new FakeProvider();
    const t = replay(provider, () => {
      provider.exchange('{"op":"create"}', '{"ok":true}');
      run();
    });
    expect(t.reproduced).toBe(false);
    expect(t.lines).toHaveLength(1);
    expect(t.lines[0]).toMatch(message);
  });

  it('says so when the replay ends in a provider fault, or the program cannot be rebuilt', () => {
    const provider = new FakeProvider();
    const faulted = replay(provider, () => {
      provider.fault = new ProviderFault('did not answer free within 5000 ms (--call-timeout)');
      throw provider.fault;
    });
    expect(faulted.lines).toEqual(['no transcript: the replay of the shrunk program ended in a provider fault (did not answer free within 5000 ms (--call-timeout))']);
    const unbuilt = replayTranscript(new FakeProvider() as unknown as ProcessProvider, failure, () => {
      throw new Error('command 0: bad');
    });
    expect(unbuilt.lines).toEqual(['no transcript: the shrunk program could not be rebuilt for a replay (Error: command 0: bad)']);
  });

  it('prints the lines indented under a heading, or the note, each followed by a blank line', () => {
    const printed: string[] = [];
    printTranscript({ transcript: { reproduced: true, lines: ['→ {"op":"create"}', '← {"ok":true}'] } }, (text) => printed.push(text));
    expect(printed.join('\n')).toBe('transcript: the shrunk program replayed (→ sent to the provider, ← its reply), 2 lines:\n  → {"op":"create"}\n  ← {"ok":true}\n');
    printed.length = 0;
    printTranscript({ transcript: { reproduced: false, lines: ['no transcript: …'] } }, (text) => printed.push(text));
    expect(printed).toEqual(['no transcript: …\n']);
    printed.length = 0;
    printTranscript({ transcript: null }, (text) => printed.push(text));
    expect(printed).toEqual([]);
  });
});
