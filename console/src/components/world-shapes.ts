/**
 * The countries of the world map as SVG paths: Natural Earth's 1:110m countries (world-atlas, ISC;
 * the data is public domain) on the Equal Earth projection, each named by its ISO 3166-1 alpha-2
 * code (i18n-iso-countries maps the atlas's numeric ids). Heavy: only world-map.tsx imports it, with
 * a dynamic import(), so it and its data make a chunk of their own, bundled (nothing is fetched from
 * elsewhere at run time).
 */
import { geoEqualEarth, geoPath } from 'd3-geo';
import { numericToAlpha2 } from 'i18n-iso-countries';
import { feature } from 'topojson-client';
import atlas from 'world-atlas/countries-110m.json';

/** One country's outline. */
export interface CountryShape {
  /** ISO 3166-1 alpha-2, upper case; null where the atlas has no code (disputed areas). */
  code: string | null;
  /** The atlas's English name (the console shows Intl.DisplayNames' instead where it has a code). */
  name: string;
  /** The SVG path, in the map's coordinates. */
  d: string;
}

/** The projected map: its size (the SVG's viewBox) and the countries. */
export interface WorldShapes {
  width: number;
  height: number;
  countries: CountryShape[];
}

const WIDTH = 960;
/** Antarctica: no clicks come from there, and it would take a fifth of the map. */
const ANTARCTICA = '010';
/** Areas the atlas gives no numeric code that IP geolocation names by a user-assigned one. */
const UNNUMBERED: Record<string, string> = { Kosovo: 'XK' };

/** Projects the atlas (a few milliseconds; the caller keeps the result). */
export function worldShapes(): WorldShapes {
  const all = feature(atlas, atlas.objects.countries);
  const countries = { ...all, features: all.features.filter((f) => f.id !== ANTARCTICA) };
  const projection = geoEqualEarth().fitWidth(WIDTH, countries);
  const path = geoPath(projection).digits(1);
  const [, [, bottom]] = path.bounds(countries);
  return {
    width: WIDTH,
    height: Math.ceil(bottom),
    countries: countries.features.map((f) => ({
      code:
        (f.id === undefined ? undefined : numericToAlpha2(f.id)) ??
        UNNUMBERED[f.properties.name] ??
        null,
      name: f.properties.name,
      d: path(f) ?? '',
    })),
  };
}
