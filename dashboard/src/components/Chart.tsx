import { ReactNode, useEffect, useId, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  readonly label: string;
  /** One count per bucket, as many as the chart's `times`. */
  readonly values: readonly number[];
  /** Index into the palette (styles.css .series-N has the same colour for the legend). */
  readonly tone: number;
}

/**
 * Colours with at least 3:1 against white (WCAG 1.4.11), each series also dashed its own way, so
 * lines are told apart without colour too.
 */
const PALETTE = ['#1e6b34', '#1f5fbf', '#a35200', '#b3261e', '#6b3fa0'];
const DASHES: (number[] | undefined)[] = [undefined, [8, 4], [2, 3], [12, 3, 3, 3], [4, 4]];
const INTEGER_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 1e6, 1e7, 1e8];
const HEIGHT = 220;

/**
 * A line chart over time (uPlot, on a canvas that screen readers skip) with its accessible
 * alternative: the caption says what it shows and sums up, "Show as table" has every number.
 * `times` are bucket starts in epoch milliseconds; `formatTime` labels them in the table.
 */
export function TimeChart({
  caption,
  times,
  series,
  formatTime,
  tableCaption,
}: {
  caption: ReactNode;
  times: readonly number[];
  series: readonly ChartSeries[];
  formatTime: (ms: number) => string;
  tableCaption: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const captionId = useId();
  useEffect(() => {
    const target = box.current!;
    const chart = new uPlot(
      {
        width: Math.max(target.clientWidth, 280),
        height: HEIGHT,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] } },
        axes: [
          { stroke: '#4f5863', grid: { stroke: '#e4e8ed' }, ticks: { stroke: '#d5dae0' } },
          { stroke: '#4f5863', grid: { stroke: '#e4e8ed' }, ticks: { stroke: '#d5dae0' }, incrs: INTEGER_STEPS, size: 56 },
        ],
        series: [
          {},
          ...series.map((s) => ({
            label: s.label,
            stroke: PALETTE[s.tone % PALETTE.length],
            dash: DASHES[s.tone % DASHES.length],
            width: 2,
            // Dots mark the buckets where there are few enough to tell apart.
            points: { show: times.length <= 31, size: 5 },
          })),
        ],
      },
      [times.map((ms) => ms / 1000), ...series.map((s) => [...s.values])],
      target,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(target.clientWidth, 280), height: HEIGHT }));
    resize.observe(target);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [times, series]);

  return (
    <figure className="chart" aria-labelledby={captionId}>
      <figcaption id={captionId}>{caption}</figcaption>
      <ul className="legend" aria-hidden="true">
        {series.map((s) => (
          <li key={s.label}>
            <span className={`swatch series-${s.tone % PALETTE.length}`} /> {s.label}
          </li>
        ))}
      </ul>
      <div ref={box} className="chart-canvas" aria-hidden="true" />
      <details>
        <summary>Show as table</summary>
        {/* Scrolls when long: focusable, so a keyboard scrolls it too. */}
        <div className="table-wrap" role="region" aria-label={tableCaption} tabIndex={0}>
          <table>
            <caption className="visually-hidden">{tableCaption}</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                {series.map((s) => (
                  <th scope="col" key={s.label} className="number">
                    {s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {times.map((ms, i) => (
                <tr key={ms}>
                  <th scope="row">{formatTime(ms)}</th>
                  {series.map((s) => (
                    <td key={s.label} className="number">
                      {s.values[i].toLocaleString()}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
