import { createHash } from 'node:crypto';

/**
 * Longest readable part of a signature (characters): the signature names a file, and a long rule
 * must not make a name the file system refuses (ENAMETOOLONG).
 */
export const kSignatureReadableCharsMax = 40;

/** Hex digits of the digest: enough that two different failures of one rule never share a file. */
const kDigestHexChars = 10;

/** The readable part when a rule has no letters or digits at all. */
const kReadableFallback = 'failure';

/**
 * A failure's identity across runs: the target, the rule that caught it, and its message with the
 * numbers taken out (page ids, seeds and lengths differ from one finding to the next). It is the
 * stored file's name, so it is only `[a-z0-9-]`: the rule, readable and cut to
 * `kSignatureReadableCharsMax`, then a 10-hex digest of all three.
 */
export function failureSignature(target: string, rule: string, message: string): string {
  const shape = message.replace(/-?\d+/g, 'N').replace(/\s+/g, ' ').trim();
  const digest = createHash('sha256').update(`${target}\n${rule}\n${shape}`).digest('hex').slice(0, kDigestHexChars);
  const readable = rule
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, kSignatureReadableCharsMax)
    .replace(/^-+|-+$/g, '');
  return `${readable === '' ? kReadableFallback : readable}-${digest}`;
}
