/** world-atlas ships its TopoJSON without types: the shape of the one file the console bundles. */
declare module 'world-atlas/countries-110m.json' {
  import type { GeometryCollection, Topology } from 'topojson-specification';

  /** Natural Earth's 1:110m countries: `id` the ISO 3166-1 numeric code (absent for a few), `name`. */
  const atlas: Topology<{
    countries: GeometryCollection<{ name: string }>;
    land: GeometryCollection;
  }>;
  export default atlas;
}
