import { Global, Injectable, Module, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';

/** What browsers and crawlers ask every host for: no route answers them, but no link takes them. */
const HOST_FILES = ['favicon.ico', 'robots.txt'];

/** The parts of Express's router this reads: each layer's route path or mount path. */
interface RouterLayer {
  route?: { path?: unknown };
  rawPath?: unknown;
}

/**
 * The first path segments of the application's routes and mounts (`/url.:format` → `url`,
 * `/stats/…` → `stats`, `/console` → `console`), so that the segments the API answers on the
 * default domain follow the routes instead of a list kept beside them.
 */
export function routeSegments(stack: RouterLayer[]): string[] {
  const segments = new Set<string>();
  for (const layer of stack) {
    const path = layer.route?.path ?? layer.rawPath;
    if (typeof path !== 'string') continue;
    const first = path.replace(/^\/+/, '').split('/')[0];
    // A parameter or an extension in the segment (`url.:format`) starts where the name ends.
    const name = first.replace(/[:*(].*$/, '').replace(/\.$/, '');
    if (name !== '') segments.add(name);
  }
  return [...segments];
}

/**
 * The paths that belong to the API on the default domain: there the API's routes win over links
 * (docs/api.md, "Paths"). Read from the router once the routes are registered, before the server
 * listens.
 */
@Injectable()
export class ApiPaths implements OnApplicationBootstrap {
  private segments = new Set<string>(HOST_FILES);

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onApplicationBootstrap(): void {
    const app = this.adapterHost.httpAdapter?.getInstance<{ router?: { stack?: RouterLayer[] } }>();
    this.segments = new Set([...HOST_FILES, ...routeSegments(app?.router?.stack ?? [])]);
  }

  /** Whether a path's first segment, or its name before a dot (`url.json`), is the API's. */
  has(path: string): boolean {
    const slash = path.indexOf('/');
    const first = slash === -1 ? path : path.slice(0, slash);
    if (this.segments.has(first)) return true;
    const dot = first.indexOf('.');
    return dot > 0 && this.segments.has(first.slice(0, dot));
  }
}

@Global()
@Module({ providers: [ApiPaths], exports: [ApiPaths] })
export class ApiPathsModule {}
