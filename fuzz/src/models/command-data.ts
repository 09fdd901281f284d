/**
 * A model command as data: the name of its builder in the model's `program.ts` and the builder's
 * arguments. A regression file stores commands in this form, and the codec of each model turns
 * them back into commands by checking them against a schema, never by evaluating text.
 */

/** A value JSON can hold exactly: what a command's arguments are made of. */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** One command as data: `alloc(64)` is `{ op: 'alloc', args: [64] }`. */
export interface CommandData {
  /** The builder's name (`alloc`, `freeSegments`, …). */
  readonly op: string;
  /** The builder's arguments, in order. */
  readonly args: readonly JsonValue[];
}

/** A command that can say what it is as data (every command of the stored models). */
export interface DataCommand {
  toData(): CommandData;
}

/** A key printed bare when it is an identifier, quoted otherwise. */
const kIdentifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A string as a single-quoted JavaScript literal; control characters are escaped as JSON escapes them. */
function printString(s: string): string {
  return `'${JSON.stringify(s).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
}

function printValue(value: JsonValue): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return printString(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${(value as readonly JsonValue[]).map(printValue).join(', ')}]`;
  const entries = Object.entries(value as { readonly [key: string]: JsonValue });
  if (entries.length === 0) return '{}';
  return `{ ${entries.map(([key, v]) => `${kIdentifier.test(key) ? key : printString(key)}: ${printValue(v)}`).join(', ')} }`;
}

/**
 * A command as a JavaScript call for people, the way the models print their commands:
 * `alloc(64)`, `reject('doubleFree', 0, 1)`, `freeSegments(0, { keepPages: 0, cuts: [] })`. A
 * printed program pastes into a test that imports the model's builders. kvfuzz itself never reads
 * this text back.
 *
 * @param data - the command as data.
 */
export function printCall(data: CommandData): string {
  return `${data.op}(${data.args.map(printValue).join(', ')})`;
}

/** Whether a command carries its data (every command of the stored models, and of the host contract model, which the validator replays). */
export function hasData(command: unknown): command is DataCommand {
  return typeof command === 'object' && command !== null && typeof (command as Partial<DataCommand>).toData === 'function';
}
