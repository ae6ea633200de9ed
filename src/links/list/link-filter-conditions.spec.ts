import { linkFilterConditions } from './link-filter-conditions';

describe('linkFilterConditions', () => {
  const binder = () => {
    const params: unknown[] = [];
    const bind = (value: unknown, type: string) => {
      params.push(value);
      return `{p${params.length - 1}:${type}}`;
    };
    return { params, bind };
  };

  it('writes each link filter over the links mirror, its value bound', () => {
    const { params, bind } = binder();
    expect(
      linkFilterConditions(
        {
          domain: 'go.example',
          tool: 'mail-form',
          shared_at_hour_of_week: '87',
          shared_at_day_of_week: '6',
          shared_at_hour_of_day: '0',
          tag_2: 'a',
        },
        bind,
        ['Mail-Form'],
      ),
    ).toEqual([
      'domain = {p0:String}',
      '(tool = {p1:String} OR tool IN {p2:Array(String)})',
      'toUInt16((toDayOfWeek(shared_at) - 1) * 24 + toHour(shared_at)) = {p3:UInt16}',
      'toUInt16(toDayOfWeek(shared_at) - 1) = {p4:UInt16}',
      'toUInt16(toHour(shared_at)) = {p5:UInt16}',
      'has(tag_2, {p6:String})',
    ]);
    expect(params).toEqual(['go.example', 'mail-form', ['Mail-Form'], 87, 6, 0, 'a']);
  });

  it('leaves out what is not a link filter (a click dimension): never a name it did not whitelist', () => {
    const { params, bind } = binder();
    expect(
      linkFilterConditions({ country: 'DE', 'x = 1 OR 1': 'y', channel: 'sms' }, bind),
    ).toEqual(['channel = {p0:String}']);
    expect(params).toEqual(['sms']);
  });

  it('a tool filter without labelled keys still binds an empty list', () => {
    const { params, bind } = binder();
    expect(linkFilterConditions({ tool: 't' }, bind)).toEqual([
      '(tool = {p0:String} OR tool IN {p1:Array(String)})',
    ]);
    expect(params).toEqual(['t', []]);
  });
});
