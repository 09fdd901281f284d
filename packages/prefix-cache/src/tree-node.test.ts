import { describe, expect, it } from 'vitest';
import { TreeNode } from './tree-node.js';

describe('prefix-cache:tree-node,*', () => {
  it('starts unlocked with zero stamps, hits and priority, and no host copy', () => {
    const node = new TreeNode(3, null, new Int32Array([1, 2]), 'x', new Int32Array([10, 11]));
    expect([node.id, node.lockRef, node.lastAccessTime, node.creationTime, node.hitCount, node.priority, node.hostRefCounter]).toEqual([3, 0, 0, 0, 0, 0, 0]);
    expect(node.children.size).toBe(0);
    expect(node.extraKey).toBe('x');
    expect(node.hostValue).toBeNull();
  });

  it.each([
    [new Int32Array([10]), null, false, false],
    [null, new Int32Array([5]), true, true],
    [new Int32Array([10]), new Int32Array([5]), false, true],
    [null, null, true, false],
  ])('evicted ⇔ value is null, backuped ⇔ hostValue is set (value %j, host %j)', (value, hostValue, evicted, backuped) => {
    const node = new TreeNode(1, null, new Int32Array([1]), null, value);
    node.hostValue = hostValue;
    expect(node.evicted).toBe(evicted);
    expect(node.backuped).toBe(backuped);
  });
});
