import { describe, expect, it } from 'vitest';
import { taskSplit, tasksInSplit } from './splits.js';

describe('taskSplit', () => {
  it('puts a task on the tuning side exactly when FNV-1a(id) is divisible by 5', () => {
    // FNV-1a 32-bit by hand: 'a' -> 0xe40c292c = 3826002220, 3826002220 % 5 = 0 -> tuning;
    // '' -> offset basis 0x811c9dc5 = 2166136261, % 5 = 1 -> heldout.
    expect(taskSplit('a')).toBe('tuning');
    expect(taskSplit('')).toBe('heldout');
  });

  it('keeps about a fifth of 10,000 ids for tuning and filters in order', () => {
    const tasks = Array.from({ length: 10_000 }, (_, index) => ({ id: `task-${index}` }));
    const tuning = tasksInSplit(tasks, 'tuning');
    const heldout = tasksInSplit(tasks, 'heldout');
    expect(tuning.length + heldout.length).toBe(10_000);
    expect(tuning.length / 10_000).toBeGreaterThan(0.18);
    expect(tuning.length / 10_000).toBeLessThan(0.22);
    expect(
      heldout.every(
        (task, index) =>
          index === 0 || Number(task.id.slice(5)) > Number((heldout[index - 1] as { id: string }).id.slice(5)),
      ),
    ).toBe(true);
  });
});
