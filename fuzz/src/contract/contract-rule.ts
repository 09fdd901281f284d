/**
 * One rule of CONTRACT.md, as the validator knows it: the id and one-line statement every
 * violation quotes, and the columns CONTRACT.md gives it. The text of CONTRACT.md is the normative
 * one; a test holds this table and the document to the same ids, statements and columns.
 */
export interface ContractRule {
  /** `A1`, `A2`, … for the allocator; `H1`, … for the host pool. */
  readonly id: string;
  /** The rule's one-line statement, as CONTRACT.md's heading gives it. */
  readonly title: string;
  /** MUST: required behaviour; MUST refuse: input that must be refused, nothing changed; MAY: a choice, every listed behaviour passes. */
  readonly level: 'MUST' | 'MUST refuse' | 'MAY';
  /** With which setting of the in-line checks the rule holds: `both`, or `on` only (with checks off those inputs are undefined behaviour). */
  readonly checks: 'both' | 'on';
  /** Which validation mode checks it: `both` (contract and exact), or `exact` only. */
  readonly mode: 'both' | 'exact';
}
