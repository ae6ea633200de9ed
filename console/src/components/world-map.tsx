import { useEffect, useState } from 'preact/hooks';
import { countryName } from '../dimensions';
import type { WorldShapes } from './world-shapes';
import { ErrorNotice, Loading } from './ui';

let shapes: Promise<WorldShapes> | undefined;

/** The map's outlines, loaded once (their own chunk) and kept; a failed load is tried again next time. */
function loadShapes(): Promise<WorldShapes> {
  shapes ??= import('./world-shapes').then(
    (m) => m.worldShapes(),
    (error: unknown) => {
      shapes = undefined;
      throw error;
    },
  );
  return shapes;
}

/** Countries without clicks, and the two ends of the shades (light to dark blue). */
const NONE = '#e8eaed';
const LIGHT = [160, 196, 240];
const DARK = [11, 60, 140];

/** A country's shade: on a log scale, so that one big country leaves the others visible. */
function shade(clicks: number, max: number): string {
  if (clicks <= 0 || max <= 0) return NONE;
  const t = max === 1 ? 1 : Math.log1p(clicks) / Math.log1p(max);
  const [r, g, b] = LIGHT.map((light, i) => Math.round(light + (DARK[i] - light) * t));
  return `rgb(${r}, ${g}, ${b})`;
}

const plural = (n: number) => `${n.toLocaleString()} ${n === 1 ? 'click' : 'clicks'}`;

interface Props {
  /** Clicks by ISO 3166-1 alpha-2 code (upper case), most first; undefined while they load. */
  counts: [string, number][] | undefined;
  /** Makes a country a filter (a shaded country is clickable; the table beside does the same by keyboard). */
  onSelect?: (code: string) => void;
}

/**
 * A choropleth of the countries shaded by clicks. The SVG is one image to assistive technology,
 * named with the figures it shows; the table of countries beside it is the way in by keyboard.
 * Countries too small for the map's scale are named under it.
 */
export function WorldMap({ counts, onSelect }: Props) {
  const [map, setMap] = useState<WorldShapes | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    loadShapes().then(
      (loaded) => live && setMap(loaded),
      (e: unknown) => live && setError(new Error('The map could not be loaded', { cause: e })),
    );
    return () => {
      live = false;
    };
  }, []);
  if (error) return <ErrorNotice error={error} />;
  if (!map || !counts) return <Loading label="Loading the map…" />;
  const clicks = new Map(counts);
  const max = counts.reduce((m, [, n]) => Math.max(m, n), 0);
  const onMap = new Set(map.countries.map((c) => c.code));
  const offMap = counts.filter(([code]) => !onMap.has(code));
  const named = counts.slice(0, 10).map(([code, n]) => `${countryName(code)} ${plural(n)}`);
  const description =
    counts.length === 0
      ? 'World map of clicks by country: no clicks in this period'
      : `World map of clicks by country: ${named.join(', ')}` +
        (counts.length > named.length ? `, and ${counts.length - named.length} more` : '');
  return (
    <figure class="world-map" data-shaded={counts.filter(([code]) => onMap.has(code)).length}>
      <svg
        viewBox={`0 0 ${map.width} ${map.height}`}
        role="img"
        aria-label={description}
        preserveAspectRatio="xMidYMid meet"
      >
        {map.countries.map((c, i) => {
          const n = (c.code && clicks.get(c.code)) || 0;
          const name = c.code ? countryName(c.code) : c.name;
          return (
            <path
              key={c.code ?? `x${i}`}
              d={c.d}
              fill={shade(n, max)}
              class={n > 0 && onSelect ? 'has-clicks' : undefined}
              data-country={c.code ?? undefined}
              data-clicks={n}
              onClick={n > 0 && onSelect && c.code ? () => onSelect(c.code!) : undefined}
            >
              <title>{n > 0 ? `${name}: ${plural(n)}` : name}</title>
            </path>
          );
        })}
      </svg>
      {(max > 1 || offMap.length > 0) && (
        <figcaption>
          {max > 1 && (
            <span class="map-legend">
              <span>{plural(1)}</span>
              <span class="map-ramp" aria-hidden="true" />
              <span>{plural(max)}</span>
            </span>
          )}
          {offMap.length > 0 && (
            <span class="muted">
              Too small for the map:{' '}
              {offMap.map(([code, n]) => `${countryName(code)} (${plural(n)})`).join(', ')}
            </span>
          )}
        </figcaption>
      )}
    </figure>
  );
}
