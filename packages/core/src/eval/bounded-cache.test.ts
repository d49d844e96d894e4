import { describe, expect, it } from 'vitest';
import { BoundedCache } from './bounded-cache';

describe('BoundedCache', () => {
  it('keeps at most twice its capacity, whatever the number of distinct keys', () => {
    const cache = new BoundedCache<string, number>(100);
    for (let i = 0; i < 100000; i++) {
      cache.set(`k${i}`, i);
      expect(cache.size).toBeLessThanOrEqual(200);
    }
    expect(cache.get('k99999')).toBe(99999);
    expect(cache.get('k0')).toBeUndefined();
  });

  it('an entry in use survives generations (least recently used is evicted first)', () => {
    const cache = new BoundedCache<number, string>(10);
    cache.set(-1, 'hot');
    for (let i = 0; i < 1000; i++) {
      cache.set(i, String(i));
      expect(cache.get(-1)).toBe('hot');
    }
    expect(cache.get(5)).toBeUndefined();
  });
});
