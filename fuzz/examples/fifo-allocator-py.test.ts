import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

// The Python example provider over its real pipes: the worked exchange of PROTOCOL.md reply for
// reply, then rejections one rule at a time, each followed by a check that nothing changed.

const kScript = fileURLToPath(new URL('./fifo_allocator.py', import.meta.url));
const kProtocolDoc = fileURLToPath(new URL('../PROTOCOL.md', import.meta.url));
/** The longest wait for one reply: Python starts in well under a second, but a loaded CI machine can take seconds. */
const kReplyTimeoutMs = 10_000;
/** Each test spawns one process and sends a handful of lines. */
const kTestTimeoutMs = 30_000;

type Reply = { readonly ok: boolean; readonly [field: string]: unknown };

/** One provider process and a line reader over its stdout. */
class Provider {
  readonly child: ChildProcessWithoutNullStreams;
  private readonly lines: string[] = [];
  private waiter: ((line: string) => void) | null = null;
  private stderr = '';

  constructor() {
    this.child = spawn('python3', [kScript], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      if (this.waiter !== null) {
        const waiter = this.waiter;
        this.waiter = null;
        waiter(line);
      } else {
        this.lines.push(line);
      }
    });
  }

  /** Sends one raw line and resolves with the reply line. */
  send(line: string): Promise<string> {
    this.child.stdin.write(`${line}\n`);
    const ready = this.lines.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no reply to ${line} within ${kReplyTimeoutMs} ms; stderr: ${this.stderr}`)), kReplyTimeoutMs);
      this.waiter = (reply) => {
        clearTimeout(timer);
        resolve(reply);
      };
    });
  }

  /** Sends one request object and resolves with the parsed reply. */
  async call(request: Record<string, unknown>): Promise<Reply> {
    return JSON.parse(await this.send(JSON.stringify(request))) as Reply;
  }

  /** The error of a rejected call; fails the test when the call was accepted. */
  async rejected(request: Record<string, unknown>): Promise<string> {
    const reply = await this.call(request);
    expect(reply, `${JSON.stringify(request)} must be rejected`).toMatchObject({ ok: false });
    return String(reply['error']);
  }

  /** Sends bye and resolves with the exit code. */
  async bye(): Promise<number | null> {
    const exited = new Promise<number | null>((resolve) => this.child.on('exit', (code) => resolve(code)));
    expect(await this.call({ op: 'bye' })).toEqual({ ok: true });
    return exited;
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill();
  }
}

let live: Provider[] = [];
function start(): Provider {
  const provider = new Provider();
  live.push(provider);
  return provider;
}
afterEach(() => {
  for (const provider of live) provider.kill();
  live = [];
});

/** A provider greeted and holding a fresh allocator: 8 pages of 4 slots (kernel page 2 × DCP 2) unless told otherwise. */
async function started(config: Record<string, unknown> = {}): Promise<Provider> {
  const p = start();
  expect(await p.call({ op: 'hello', protocol: 'kvfuzz-allocator/1' })).toMatchObject({ ok: true, protocol: 'kvfuzz-allocator/1' });
  const merged = { sizeTokens: 32, kernelPageSize: 2, dcpSize: 2, needSort: false, checks: true, ...config };
  expect(await p.call({ op: 'create', config: merged })).toMatchObject({ ok: true });
  return p;
}

/** The `→` requests and `←` replies of PROTOCOL.md's worked exchange, in order. */
function workedExchange(): { request: string; reply: string }[] {
  const doc = readFileSync(kProtocolDoc, 'utf8');
  const block = /## A worked exchange\s+```\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
  const lines = block.split('\n').filter((line) => line.startsWith('→ ') || line.startsWith('← '));
  const steps: { request: string; reply: string }[] = [];
  for (let i = 0; i + 1 < lines.length; i += 2) {
    expect((lines[i] as string).startsWith('→ ') && (lines[i + 1] as string).startsWith('← ')).toBe(true);
    steps.push({ request: (lines[i] as string).slice(2), reply: (lines[i + 1] as string).slice(2) });
  }
  return steps;
}

describe('fuzz:examples,fifo-python', () => {
  it('answers the worked exchange of PROTOCOL.md reply for reply (any name), then exits 0 on bye', async () => {
    const steps = workedExchange();
    expect(steps.length).toBeGreaterThanOrEqual(8);
    const p = start();
    const exited = new Promise<number | null>((resolve) => p.child.on('exit', (code) => resolve(code)));
    for (const { request, reply } of steps) {
      const got = JSON.parse(await p.send(request)) as Record<string, unknown>;
      const expected = JSON.parse(reply) as Record<string, unknown>;
      if ((JSON.parse(request) as { op: string }).op === 'hello') {
        expect(typeof got['name']).toBe('string');
        delete got['name'];
        delete expected['name'];
      }
      expect(got, `reply to ${request}`).toEqual(expected);
    }
    expect(steps.at(-1)?.request).toContain('"bye"');
    expect(await exited).toBe(0);
  }, kTestTimeoutMs);

  it('reuses pages FIFO: a given-back page waits behind every page free before it', async () => {
    const p = await started();
    expect((await p.call({ op: 'alloc', needSize: 8 }))['indices']).toEqual([4, 5, 6, 7, 8, 9, 10, 11]);
    expect(await p.call({ op: 'free', indices: [9, 4] })).toEqual({ ok: true }); // pages 2 then 1 to the back
    expect((await p.call({ op: 'alloc', needSize: 24 }))['indices']).toEqual([...Array.from({ length: 24 }, (_, i) => 12 + i)]);
    expect((await p.call({ op: 'allocDecode', seqLens: [1, 1], lastLoc: [-1, -1] }))['indices']).toEqual([8, 4]);
    expect(await p.call({ op: 'allocDecode', seqLens: [1], lastLoc: [-1] })).toEqual({ ok: true, indices: null });
    expect(await p.bye()).toBe(0);
  }, kTestTimeoutMs);

  it('lays out an extend in three parts (ps 4: pre=2, seq=11 → [6, 7] + page 2 + offsets 0..2 of page 3)', async () => {
    const p = await started({ sizeTokens: 64, kernelPageSize: 4, dcpSize: 1 });
    expect((await p.call({ op: 'allocExtend', prefixLens: [0], seqLens: [2], lastLoc: [-1] }))['indices']).toEqual([4, 5]);
    expect((await p.call({ op: 'allocExtend', prefixLens: [2], seqLens: [11], lastLoc: [5] }))['indices']).toEqual([6, 7, 8, 9, 10, 11, 12, 13, 14]);
    expect(await p.call({ op: 'availableSize' })).toEqual({ ok: true, value: 13 * 4 });
    expect(await p.call({ op: 'allocExtend', prefixLens: [0], seqLens: [53], lastLoc: [-1] })).toEqual({ ok: true, indices: null });
    expect(await p.call({ op: 'availableSize' })).toEqual({ ok: true, value: 13 * 4 });
    expect(await p.bye()).toBe(0);
  }, kTestTimeoutMs);

  it('defers frees in a group and round-trips backupState / restoreState', async () => {
    const p = await started();
    await p.call({ op: 'alloc', needSize: 12 });
    const { state } = await p.call({ op: 'backupState' });
    expect(await p.call({ op: 'freeGroupBegin' })).toEqual({ ok: true });
    await p.call({ op: 'free', indices: [4] });
    await p.call({ op: 'freeSegments', segments: [{ indices: [8, 9, 10, 11], startPos: 0 }, { indices: [], startPos: 6 }] });
    expect(await p.call({ op: 'availableSize' })).toEqual({ ok: true, value: 20 });
    expect(await p.rejected({ op: 'free', indices: [5] })).toBe('DoubleFreeError: pages not currently allocated: [1]');
    expect(await p.rejected({ op: 'backupState' })).toMatch(/^FreeGroupError: /);
    expect(await p.call({ op: 'freeGroupEnd' })).toEqual({ ok: true });
    expect(await p.call({ op: 'availableSize' })).toEqual({ ok: true, value: 28 });
    expect(await p.call({ op: 'restoreState', state })).toEqual({ ok: true });
    expect(await p.call({ op: 'availableSize' })).toEqual({ ok: true, value: 20 });
    expect(await p.call({ op: 'backupState' })).toEqual({ ok: true, state });
    expect(await p.bye()).toBe(0);
  }, kTestTimeoutMs);

  it('rejects bad calls by name and changes nothing', async () => {
    const p = await started();
    await p.call({ op: 'alloc', needSize: 8 }); // pages 1, 2
    const { state } = await p.call({ op: 'backupState' });
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ op: 'alloc', needSize: -4 }, /^ArgumentError: alloc size -4/],
      [{ op: 'alloc', needSize: 6 }, /^ArgumentError: alloc size 6 is not a multiple of the page size 4/],
      [{ op: 'alloc', needSize: 4.5 }, /^ArgumentError: alloc size 4.5/],
      [{ op: 'allocExtend', prefixLens: [0, 0], seqLens: [1], lastLoc: [-1, -1] }, /^ArgumentError: extend batch arrays differ/],
      [{ op: 'allocExtend', prefixLens: [3], seqLens: [2], lastLoc: [6] }, /^ArgumentError: request 0: seqLens 2 < prefixLens 3/],
      [{ op: 'allocExtend', prefixLens: [2], seqLens: [3], lastLoc: [6] }, /^LastLocError: request 0: lastLoc 6 does not fit/],
      [{ op: 'allocDecode', seqLens: [1], lastLoc: [4] }, /^LastLocError: request 0: lastLoc 4 must be -1/],
      [{ op: 'allocDecode', seqLens: [0], lastLoc: [-1] }, /^ArgumentError: request 0: seqLens 0/],
      [{ op: 'free', indices: [2] }, /^DoubleFreeError: pages not currently allocated: \[0\]/],
      [{ op: 'free', indices: [4, 12, 13] }, /^DoubleFreeError: pages not currently allocated: \[3\]/],
      [{ op: 'free', indices: [36] }, /^SlotRangeError: /],
      [{ op: 'freeSegments', segments: [{ indices: [6, 7], startPos: 2 }] }, /^SegmentError: segment start 2 is not page-aligned/],
      [{ op: 'freeSegments', segments: [{ indices: [4, 5, 6, 7], startPos: 0 }, { indices: [4, 5, 6, 7], startPos: 4 }] }, /^DoubleFreeError: pages not currently allocated: \[1\]/],
      [{ op: 'freeSegments', segments: [{ indices: [5, 5, 6, 7], startPos: 0 }] }, /^SegmentError: .*page structure/],
      [{ op: 'freeGroupEnd' }, /^FreeGroupError: /],
      [{ op: 'restoreState', state: { kind: 'elsewhere' } }, /^StateError: /],
      [{ op: 'nonsense' }, /^ProtocolError: unknown op/],
      [{ op: 'alloc' }, /^ProtocolError: alloc needs the field 'needSize'/],
      [{ op: 'free', indices: 4 }, /^ProtocolError: /],
    ];
    for (const [request, error] of cases) {
      expect(await p.rejected(request), JSON.stringify(request)).toMatch(error);
      expect(await p.call({ op: 'backupState' }), `state after ${JSON.stringify(request)}`).toEqual({ ok: true, state });
    }
    expect(await p.send('not json')).toMatch(/^\{"ok":false,"error":"ProtocolError: /);
    expect(await p.bye()).toBe(0);
  }, kTestTimeoutMs);

  it('refuses work before create, a bad config, nested groups and another protocol version', async () => {
    const p = start();
    expect(await p.rejected({ op: 'hello', protocol: 'kvfuzz-allocator/2' })).toMatch(/^unsupported protocol/);
    expect(await p.rejected({ op: 'availableSize' })).toMatch(/^StateError: /);
    expect(await p.rejected({ op: 'create', config: { sizeTokens: 24, kernelPageSize: 1, dcpSize: 3 } })).toBe('ConfigError: dcpSize 3 is not a power of two');
    expect(await p.rejected({ op: 'create', config: { sizeTokens: 30, kernelPageSize: 4 } })).toMatch(/^ConfigError: sizeTokens 30 is not a multiple of the page size 4/);
    expect(await p.rejected({ op: 'create', config: { sizeTokens: 0 } })).toMatch(/^ConfigError: sizeTokens 0/);
    expect(await p.call({ op: 'create', config: { sizeTokens: 8 } })).toEqual({ ok: true, pageSize: 1, numPages: 8 });
    expect(await p.call({ op: 'freeGroupBegin' })).toEqual({ ok: true });
    expect(await p.rejected({ op: 'freeGroupBegin' })).toBe('FreeGroupError: free groups cannot be nested');
    expect(await p.call({ op: 'clear' })).toEqual({ ok: true });
    expect(await p.call({ op: 'freeGroupBegin' })).toEqual({ ok: true });
    expect(await p.bye()).toBe(0);
  }, kTestTimeoutMs);
});
