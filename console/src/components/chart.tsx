import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface Series {
  label: string;
  values: number[];
  color: string;
}

interface Props {
  /** What the chart shows, for its caption and accessible name. */
  title: string;
  /** Interval starts, UNIX seconds. */
  times: number[];
  series: Series[];
  timeZone: string;
  intervalLabel: string;
}

/**
 * A time series on uPlot (canvas). The canvas is hidden from assistive technology; the same figures
 * are in a table beside it (visually hidden), and the figure's name says what it shows and the totals.
 */
export function TimeChart({ title, times, series, timeZone, intervalLabel }: Props) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const width = () => Math.max(280, element.clientWidth);
    const plot = new uPlot(
      {
        width: width(),
        height: 260,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), timeZone),
        series: [
          {},
          ...series.map((s) => ({
            label: s.label,
            stroke: s.color,
            width: 2,
            points: { show: times.length < 60 },
          })),
        ],
        axes: [{}, { size: 50 }],
        scales: { x: { time: true } },
        legend: { show: true },
      },
      [times, ...series.map((s) => s.values)],
      element,
    );
    element.querySelector('canvas')?.setAttribute('aria-hidden', 'true');
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: 260 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [times, series, timeZone]);

  const format = new Intl.DateTimeFormat(undefined, {
    timeZone,
    dateStyle: 'medium',
    timeStyle: intervalLabel === 'hour' ? 'short' : undefined,
  });
  const totals = series
    .map((s) => `${s.values.reduce((a, b) => a + b, 0)} ${s.label.toLowerCase()}`)
    .join(', ');
  return (
    <figure class="chart" aria-label={`${title}: ${totals}`} data-totals={totals}>
      <figcaption>
        {title}{' '}
        <span class="muted">
          ({totals}, per {intervalLabel})
        </span>
      </figcaption>
      <div ref={box} class="chart-canvas" />
      <table class="visually-hidden" data-chart-table>
        <caption>{title}</caption>
        <thead>
          <tr>
            <th scope="col">{intervalLabel}</th>
            {series.map((s) => (
              <th scope="col" key={s.label}>
                {s.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {times.map((t, i) => (
            <tr key={i}>
              <th scope="row">{Number.isFinite(t) ? format.format(new Date(t * 1000)) : '—'}</th>
              {series.map((s) => (
                <td key={s.label}>{s.values[i]}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
