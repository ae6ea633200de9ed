import { AppError } from '../common/app-error';
import { effectiveRetentionDays, parseRetention, retentionChanges } from './project-retention';

describe('project retention_days', () => {
  it('reads an integer from 1 to 36500, or null for the instance default; absent changes nothing', () => {
    expect(parseRetention({})).toEqual({});
    expect(parseRetention({ retention_days: 30 })).toEqual({ retentionDays: 30 });
    expect(parseRetention({ retention_days: 36500 })).toEqual({ retentionDays: 36500 });
    expect(parseRetention({ retention_days: null })).toEqual({ retentionDays: null });
    expect(retentionChanges({})).toEqual({});
    expect(retentionChanges({ retentionDays: null })).toEqual({ retentionDays: null });
  });

  it.each([0, 36501, 1.5, '30', true, -1])('refuses %p naming json.retention_days', (value) => {
    let error: unknown;
    try {
      parseRetention({ retention_days: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as Error).message).toContain('json.retention_days');
  });

  it("a project's own setting wins over the instance's; neither: forever", () => {
    expect(effectiveRetentionDays({ retentionDays: 10 }, 400)).toBe(10);
    expect(effectiveRetentionDays({ retentionDays: null }, 400)).toBe(400);
    expect(effectiveRetentionDays({ retentionDays: null }, null)).toBeNull();
  });
});
