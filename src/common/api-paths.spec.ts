import { ApiPaths, routeSegments } from './api-paths';

describe('routeSegments', () => {
  it('takes the first segment of each route and mount, without parameters or extensions', () => {
    expect(
      routeSegments([
        { route: { path: '/url.:format' } },
        { route: { path: '/url/batch.:format' } },
        { route: { path: '/stats/:svc_id/intervals.json' } },
        { route: { path: '/svc.js' } },
        { route: { path: '/docs-json' } },
        { rawPath: '/console' },
        { rawPath: '/console/assets/' },
        { rawPath: '/' },
        { rawPath: '*' },
        { route: { path: '/:anything' } },
        { route: {} },
        {},
      ]),
    ).toEqual(['url', 'stats', 'svc.js', 'docs-json', 'console']);
  });
});

describe('ApiPaths', () => {
  const paths = (stack: { route?: { path?: string }; rawPath?: string }[]) => {
    const api = new ApiPaths({
      httpAdapter: { getInstance: () => ({ router: { stack } }) },
    } as never);
    api.onApplicationBootstrap();
    return api;
  };

  it('answers for a path whose first segment, or its name before a dot, is a route’s', () => {
    const api = paths([{ route: { path: '/url.:format' } }, { route: { path: '/projects/new' } }]);
    expect(['url', 'url.json', 'url/batch.json', 'projects/mine'].map((p) => api.has(p))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['urlx', 'aB3dE9x', 'stats', '.url'].map((p) => api.has(p))).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });

  it('keeps favicon.ico and robots.txt from links, though no route answers them (not favicon)', () => {
    const api = paths([]);
    expect([api.has('favicon.ico'), api.has('robots.txt'), api.has('favicon')]).toEqual([
      true,
      true,
      false,
    ]);
  });
});
