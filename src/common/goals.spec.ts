import { CONVERSION_TYPES, GOALS, RECORDED_GOALS } from './goals';

describe('goals', () => {
  it('lists ten goals, of which conversions record the first five', () => {
    expect(GOALS).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(RECORDED_GOALS).toEqual([1, 2, 3, 4, 5]);
  });

  it('makes the conversion types a pageview and the recorded goals', () => {
    expect(CONVERSION_TYPES).toEqual([
      'pageview',
      'goal_1',
      'goal_2',
      'goal_3',
      'goal_4',
      'goal_5',
    ]);
  });
});
