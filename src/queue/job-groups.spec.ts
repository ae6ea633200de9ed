import { MemoryJobGroups } from './job-groups';

describe('MemoryJobGroups', () => {
  it('gives `cap` slots, parks the rest in order and hands the longest parked to a release', async () => {
    const groups = new MemoryJobGroups();
    expect(await groups.take('w', 2, 'a', 60_000)).toBe(true);
    expect(await groups.take('w', 2, 'b', 60_000)).toBe(true);
    expect(await groups.take('w', 2, 'c', 60_000)).toBe(false);
    expect(await groups.take('w', 2, 'd', 60_000)).toBe(false);
    // Parked again: its place is kept.
    expect(await groups.take('w', 2, 'c', 60_000)).toBe(false);
    expect(await groups.hasRoom('w', 2)).toBe(false);
    // Another group is not affected.
    expect(await groups.take('x', 2, 'e', 60_000)).toBe(true);
    expect(await groups.release('w', 'a')).toBe('c');
    expect(await groups.hasRoom('w', 2)).toBe(true);
    expect(await groups.take('w', 2, 'c', 60_000)).toBe(true);
    expect(await groups.release('w', 'b')).toBe('d');
    expect(await groups.release('w', 'c')).toBeNull();
  });

  it('lets a slot go when its lease ends (a crashed holder)', async () => {
    const groups = new MemoryJobGroups();
    expect(await groups.take('w', 1, 'a', -1)).toBe(true);
    expect(await groups.hasRoom('w', 1)).toBe(true);
    expect(await groups.take('w', 1, 'b', 60_000)).toBe(true);
  });

  it('counts up to the cap and down to zero', async () => {
    const groups = new MemoryJobGroups();
    expect(await groups.admit('k', 70, 100)).toBe(70);
    expect(await groups.admit('k', 70, 100)).toBe(30);
    expect(await groups.admit('k', 1, 100)).toBe(0);
    await groups.settle('k', 50);
    expect(await groups.admit('k', 70, 100)).toBe(50);
    await groups.settle('k', 1000);
    expect(await groups.admit('k', 5, 100)).toBe(5);
  });
});
