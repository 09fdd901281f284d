/**
 * A requested size for the tests' large pools: the host pool bench's pools hold tens of thousands
 * of slots, and the tests run their large-pool cases at a size of that order that stays fast.
 */
export const kLargePoolTokens = 4096;
