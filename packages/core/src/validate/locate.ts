/** From a JSON Pointer to the text range it names, on jsonc-parser's tree (built only when needed). */
import type { Node } from 'jsonc-parser';
import { parsePointer } from './pointer';
import type { RangeTarget } from './types';

/**
 * Finds the text range of a JSON Pointer on a document's jsonc-parser tree, one pointer at a time.
 * `validateDocument` places its findings in one scan with `locateMany` instead; this is for a few
 * lookups, and the reference that scan is tested against.
 * @internal
 */
export class Locator {
  /** `root` is read on the first lookup only (a document's tree is built lazily). */
  constructor(private readonly doc: { readonly root: Node | undefined }) {}

  private root(): Node | undefined {
    return this.doc.root;
  }

  /** The value node and, when it is an object member, its property node. Last member wins for duplicate keys. */
  find(pointer: string): { node: Node; property?: Node } | undefined {
    let node = this.root();
    let property: Node | undefined;
    if (!node) return undefined;
    for (const segment of parsePointer(pointer)) {
      if (node.type === 'object') {
        let found: Node | undefined;
        for (const member of node.children ?? []) if (member.children?.[0]?.value === segment) found = member;
        if (!found || !found.children?.[1]) return found ? { node: found, property: found } : undefined;
        property = found;
        node = found.children[1];
      } else if (node.type === 'array') {
        const item: Node | undefined = /^(0|[1-9][0-9]*)$/.test(segment) ? node.children?.[Number(segment)] : undefined;
        if (!item) return undefined;
        property = undefined;
        node = item;
      } else return undefined;
    }
    return { node, property };
  }

  /**
   * Offset range for a diagnostic: the value (strings with quotes), the key for `key` targets,
   * and for `object-key` (missing properties) the key of the member holding the object, or its `{`.
   */
  range(pointer: string, target: RangeTarget | 'object-key'): { offset: number; length: number } {
    const found = this.find(pointer);
    if (!found) {
      // Fall back to the nearest existing ancestor.
      const parent = pointer.lastIndexOf('/');
      return parent >= 0 ? this.range(pointer.slice(0, parent), 'value') : { offset: 0, length: 0 };
    }
    if (target === 'key' && found.property?.children?.[0]) {
      const k = found.property.children[0];
      return { offset: k.offset, length: k.length };
    }
    if (target === 'object-key') {
      if (found.property?.children?.[0]) {
        const k = found.property.children[0];
        return { offset: k.offset, length: k.length };
      }
      return { offset: found.node.offset, length: 1 };
    }
    return { offset: found.node.offset, length: found.node.length };
  }
}
