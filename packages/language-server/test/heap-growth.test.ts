import { describe, expect, it } from 'vitest';
import { HEAP_GROWING_PERCENT, tuneHeapGrowth } from '../src/heap-growth';

describe('the server heap growing factor (heap-growth.ts)', () => {
  it('sets V8 --heap-growing-percent when the process was started without one', () => {
    const set: string[] = [];
    expect(tuneHeapGrowth(['--enable-source-maps', '--max-old-space-size=4096'], (f) => set.push(f))).toBe(true);
    expect(set).toEqual([`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]);
  });

  it.each([['--heap-growing-percent=0'], ['--heap_growing_percent=50'], ['--heap-growing-percent']])('keeps the one the process was started with (%s)', (arg) => {
    const set: string[] = [];
    expect(tuneHeapGrowth(['--inspect', arg], (f) => set.push(f))).toBe(false);
    expect(set).toEqual([]);
  });

  it('is not fooled by a flag that only starts alike', () => {
    const set: string[] = [];
    expect(tuneHeapGrowth(['--heap-growing-percentage=5'], (f) => set.push(f))).toBe(true);
    expect(set).toHaveLength(1);
  });
});
