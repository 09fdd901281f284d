/**
 * The call a violation message names: text, or a model command, which prints itself only when a
 * message is built — so a command that passes its checks never formats its own text.
 */
export type OpLabel = string | { toString(): string };
