import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

/** One drawn series: its name (the legend) and colour (WCAG AA against the page's white). */
export interface SeriesSpec {
  label: string;
  color: string;
}

/**
 * A uPlot chart in a figure: lines over time (`kind: 'time'`, x in epoch seconds) or bars
 * over categories (`kind: 'bars'`, x the category's index, `categories` its labels). The
 * canvas is an image to assistive technology (`summary` says what it shows); the numbers are
 * in the tables beside every chart. Redrawn when the data or the width changes.
 */
export function Chart(props: {
  kind: 'time' | 'bars';
  x: number[];
  series: Array<SeriesSpec & { values: number[] }>;
  categories?: string[];
  summary: string;
  height?: number;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const bars = props.kind === 'bars';
    const barPaths = uPlot.paths.bars!({ size: [0.7, 60] });
    const make = () =>
      new uPlot(
        {
          width: Math.max(280, Math.min(el.clientWidth || 600, 960)),
          height: props.height ?? 220,
          scales: { x: { time: !bars }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
          axes: [
            bars
              ? {
                  values: (_u, ticks) => ticks.map((t) => props.categories?.[t] ?? ''),
                  splits: () => props.x,
                }
              : {},
            { size: 50 },
          ],
          legend: { show: true },
          series: [
            {},
            ...props.series.map((s) => ({
              label: s.label,
              stroke: s.color,
              width: 2,
              fill: bars ? s.color : undefined,
              paths: bars ? barPaths : undefined,
              points: { show: !bars && props.x.length < 3 },
            })),
          ],
        },
        [props.x, ...props.series.map((s) => s.values)],
        el,
      );
    const chart = make();
    const observer = new ResizeObserver(() => {
      const width = Math.max(280, Math.min(el.clientWidth || 600, 960));
      if (width !== chart.width) chart.setSize({ width, height: props.height ?? 220 });
    });
    observer.observe(el);
    return () => {
      observer.disconnect();
      chart.destroy();
    };
  }, [props.kind, JSON.stringify(props.x), JSON.stringify(props.series), props.categories?.join()]);
  return <div class="chart" ref={box} role="img" aria-label={props.summary} />;
}
