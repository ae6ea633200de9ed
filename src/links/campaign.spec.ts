import { isStub, stubify } from './campaign';

describe('stubify', () => {
  it.each([
    ['summer_sale', 'summer_sale'],
    ['Summer Sale 2026!', 'summer_sale_2026'],
    ['  Été   Promo  ', 'ete_promo'],
    ['a--b__c', 'a--b__c'],
    ['***', null],
    ['Black/Friday & Co', 'black_friday_co'],
  ])('%j → %j', (input, expected) => {
    expect(stubify(input)).toBe(expected);
  });

  it('recognises stubs', () => {
    expect(isStub('spring-2026_a')).toBe(true);
    expect(isStub('Spring')).toBe(false);
    expect(isStub('spring sale')).toBe(false);
    expect(isStub('')).toBe(false);
  });
});
