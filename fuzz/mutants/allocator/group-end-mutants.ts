/**
 * Planted bugs in an allocator that takes A24's other choice — a bad give-back inside a free group
 * accepted at the call and refused at `freeGroupEnd` — built on the state-stack alternative
 * (`fuzz/alternatives/stack-allocator.ts`), which does it right. Each overrides one step.
 */
import { DoubleFreeError, kHeld, StackAllocator } from '../../alternatives/stack-allocator.js';

/** A17: the refused end first releases the group's good pages and closes it; only then it throws. */
export class GroupEndNotAtomic extends StackAllocator {
  protected override refuseGroupEnd(): never {
    const bad = this.groupBad;
    this.releaseGroup();
    throw new DoubleFreeError(`freeGroupEnd refused, the group held a bad give-back (${bad ?? ''})`);
  }
}

/**
 * A24: plain frees inside a group are checked at `freeGroupEnd` against the page states then, not
 * at the call. A page that was free when named and handed out before the end passes — and the end
 * releases it from its new holder; a page named twice is released once, as if nothing was wrong.
 */
export class GroupEndChecksLate extends StackAllocator {
  // The distinct pages plain frees named in the open group, unchecked (emptied by freeGroupBegin; unused outside a group).
  private readonly named: number[] = [];

  override free(indices: ArrayLike<number>): void {
    if (!(this.groupOpen && this.checks)) {
      super.free(indices);
      return;
    }
    for (const slot of Array.from(indices)) {
      if (!Number.isInteger(slot) || slot < 0 || slot >= this.slotEnd) continue;
      const page = Math.floor(slot / this.pageSize);
      if (!this.named.includes(page)) this.named.push(page);
    }
  }

  override freeGroupBegin(): void {
    super.freeGroupBegin();
    this.named.length = 0;
  }

  override freeGroupEnd(): void {
    if (this.groupOpen && this.checks) {
      const notHeld = this.named.filter((page) => this.pageState[page] !== kHeld);
      if (notHeld.length > 0) throw new DoubleFreeError(`freeGroupEnd refused: pages not held: [${notHeld.join(', ')}]`);
      for (const page of this.named) this.giveBack(page);
      this.named.length = 0;
    }
    super.freeGroupEnd();
  }
}
