import { createHash } from 'node:crypto';

/**
 * A failure's identity across runs: the target, the rule that caught it, and its message with the
 * numbers taken out (page ids, seeds and lengths differ from one finding to the next).
 */
export function failureSignature(target: string, rule: string, message: string): string {
  const shape = message.replace(/-?\d+/g, 'N').replace(/\s+/g, ' ').trim();
  const digest = createHash('sha256').update(`${target}\n${rule}\n${shape}`).digest('hex').slice(0, 10);
  const readable = rule.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  return `${readable}-${digest}`;
}
