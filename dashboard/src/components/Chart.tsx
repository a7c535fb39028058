import { ReactNode, useEffect, useId, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Grain } from '../api/analytics';
import { Tone, TONES } from '../series-tones';
import { Swatch } from './Swatch';

export interface ChartSeries {
  readonly label: string;
  /** One count per bucket, as many as the chart's `times`. */
  readonly values: readonly number[];
  /** What the line means: its colour and dash, the same in every chart (series-tones.ts). */
  readonly tone: Tone;
}

const INTEGER_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 1e6, 1e7, 1e8];
const HEIGHT = 220;
const STEP_SECONDS: Record<Grain, number> = { minute: 60, hour: 3600, day: 86_400 };

/**
 * The time axis of each grain: ticks on whole buckets only, every `multiples[i]`-th one (the first
 * that leaves `space` pixels between labels), placed on round times, labelled in the grain's unit.
 * Minutes and hours are local times (the date under the first and under each new day); days are UTC
 * days, as the API counts them, labelled with their weekday and date and counted back from today.
 */
const TIME_AXES: Record<Grain, { multiples: number[]; space: number; on: (ms: number, every: number) => boolean }> = {
  minute: { multiples: [1, 2, 5, 10, 15, 20, 30, 60], space: 64, on: (ms, every) => new Date(ms).getMinutes() % every === 0 },
  hour: { multiples: [1, 2, 3, 4, 6, 12, 24], space: 48, on: (ms, every) => new Date(ms).getHours() % every === 0 },
  day: { multiples: [1, 2, 3, 7], space: 64, on: () => true },
};
const clock = new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit' });
const hour = new Intl.DateTimeFormat(undefined, { hour: 'numeric' });
const localDay = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });
const weekday = new Intl.DateTimeFormat(undefined, { weekday: 'short', timeZone: 'UTC' });
const utcDay = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });

/** The tick labels for bucket starts `ticks` (epoch ms), one string per tick, lines split by "\n". */
function tickLabels(grain: Grain, ticks: readonly number[]): string[] {
  if (grain === 'day') return ticks.map((ms) => `${weekday.format(ms)}\n${utcDay.format(ms)}`);
  return ticks.map((ms, i) => {
    // On the hour, the hour alone ("2 PM", "14"): narrow enough for a phone.
    const time = grain === 'hour' && new Date(ms).getMinutes() === 0 ? hour.format(ms) : clock.format(ms);
    const day = localDay.format(ms);
    return i === 0 || day !== localDay.format(ticks[i - 1]) ? `${time}\n${day}` : time;
  });
}

/** The ticks of the time axis: every `every`-th bucket on a round time, the days counted back from the last one. */
function tickTimes(grain: Grain, times: readonly number[], every: number): number[] {
  const last = times.length - 1;
  return times.filter((ms, i) => (grain === 'day' ? (last - i) % every === 0 : TIME_AXES[grain].on(ms, every)));
}

/**
 * A line chart over time (uPlot, on a canvas that screen readers skip) with its accessible
 * alternative: the caption says what it shows and sums up, "Show as table" has every number.
 * `times` are bucket starts of `grain` in epoch milliseconds; `formatTime` labels them in the table.
 * The time axis's labels, as drawn, are also in the canvas box's `data-x-ticks` (" | " between them).
 */
export function TimeChart({
  caption,
  times,
  grain,
  series,
  formatTime,
  tableCaption,
}: {
  caption: ReactNode;
  times: readonly number[];
  grain: Grain;
  series: readonly ChartSeries[];
  formatTime: (ms: number) => string;
  tableCaption: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const captionId = useId();
  useEffect(() => {
    const target = box.current!;
    const axis = TIME_AXES[grain];
    const step = STEP_SECONDS[grain];
    const chart = new uPlot(
      {
        width: Math.max(target.clientWidth, 280),
        height: HEIGHT,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] } },
        axes: [
          {
            stroke: '#4f5863',
            grid: { stroke: '#e4e8ed' },
            ticks: { stroke: '#d5dae0' },
            space: axis.space,
            incrs: axis.multiples.map((n) => n * step),
            splits: (_u, _axis, _min, _max, incr) => tickTimes(grain, times, Math.round(incr / step)).map((ms) => ms / 1000),
            values: (_u, splits) => {
              const labels = tickLabels(
                grain,
                splits.map((s) => s * 1000),
              );
              target.dataset.xTicks = labels.map((l) => l.replace('\n', ' ')).join(' | ');
              return labels;
            },
            size: 48,
          },
          { stroke: '#4f5863', grid: { stroke: '#e4e8ed' }, ticks: { stroke: '#d5dae0' }, incrs: INTEGER_STEPS, size: 56 },
        ],
        series: [
          {},
          ...series.map((s) => ({
            label: s.label,
            stroke: TONES[s.tone].colour,
            dash: [...TONES[s.tone].dash],
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
  }, [times, grain, series]);

  return (
    <figure className="chart" aria-labelledby={captionId}>
      <figcaption id={captionId}>{caption}</figcaption>
      <ul className="legend" aria-hidden="true">
        {series.map((s) => (
          <li key={s.label} data-tone={s.tone}>
            <Swatch tone={s.tone} /> {s.label}
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
