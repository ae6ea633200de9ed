import { flat } from '../../test/factories/stats-query';
import { rawSinceHorizon, retiredBeforeHorizon, retiredHorizon } from './retired-horizon';

describe('retired horizon', () => {
  const HORIZON =
    '(SELECT mapFromArrays(groupArray(project_id), groupArray(until)) FROM (SELECT project_id, max(retired_until) AS until' +
    ' FROM svc.retired_horizons WHERE project_id IN {p0:Array(UUID)} GROUP BY project_id))[project_id]';

  it("reads each row's project's horizon from one scalar subquery over the projects", () => {
    expect(flat(retiredHorizon('svc', '{p0:Array(UUID)}'))).toBe(HORIZON);
  });

  it('keeps the raw events at or after it by their hour, the rollups before it', () => {
    expect(flat(rawSinceHorizon('svc', '{p0:Array(UUID)}', 'clicked_at'))).toBe(
      `toStartOfHour(clicked_at) >= ${HORIZON}`,
    );
    expect(flat(retiredBeforeHorizon('svc', '{p0:Array(UUID)}'))).toBe(`hour < ${HORIZON}`);
  });

  it('writes the same subquery for the same projects, so a statement runs it once', () => {
    const a = flat(rawSinceHorizon('svc', '[{project:UUID}]', 'converted_at'));
    const b = flat(retiredBeforeHorizon('svc', '[{project:UUID}]'));
    expect(a.slice(a.indexOf('(SELECT'))).toBe(b.slice(b.indexOf('(SELECT')));
  });
});
