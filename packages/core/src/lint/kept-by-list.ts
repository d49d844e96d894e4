/**
 * A value made from a list and kept by the list itself: a policy's own array, which the language
 * server's versions of a document share (9,999 of 10,000 rules from one edit to the next), so the
 * value is made once, not on every validation. Kept with a copy of the items it was made from: a
 * list a caller changed since is read again.
 */
export class KeptByList<T> {
  private readonly kept = new WeakMap<readonly unknown[], { items: readonly unknown[]; value: T }>();

  get<L extends readonly unknown[]>(list: L, make: (list: L) => T): T {
    const known = this.kept.get(list);
    if (known !== undefined && sameItems(known.items, list)) return known.value;
    const value = make(list);
    this.kept.set(list, { items: list.slice(), value });
    return value;
  }
}

function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
