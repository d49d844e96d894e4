import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { firstSegment, firstSegmentSlow } from './repository-index';

describe('firstSegment (property)', () => {
  it('reads in place what normaliseRepositoryPath then a split give', () => {
    const piece = fc.constantFrom('/', '//', 'org', 'Org', 'ORG', '.git', '.GIT', 'repo.git', 'a', '', 'é', 'İ', '-', '_', '.', 'x.Git', 'git');
    fc.assert(fc.property(fc.array(piece, { maxLength: 6 }).map((p) => p.join('')), (path) => {
      expect(firstSegment(path)).toBe(firstSegmentSlow(path));
    }), { numRuns: 5000 });
  });
});
