// Charts with uPlot: a canvas time-series chart that stays fast with thousands of points. Each
// chart also carries a text summary (aria-label) for screen readers; the numbers are in tables too.
import { html } from 'htm/preact';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface Series {
  label: string;
  values: (number | null)[];
  color: string;
}

export interface ChartProps {
  /** Seconds since the epoch, one per point. */
  x: number[];
  series: Series[];
  bars?: boolean;
  yLabel: string;
  summary: string;
  height?: number;
}

export function Chart({ x, series, bars = false, yLabel, summary, height = 220 }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const opts: uPlot.Options = {
      width: Math.max(320, el.clientWidth || 640),
      height,
      scales: { x: { time: true } },
      axes: [{}, { label: yLabel }],
      series: [
        {},
        ...series.map((s) => ({
          label: s.label,
          stroke: s.color,
          fill: bars ? `${s.color}99` : undefined,
          width: bars ? 1 : 2,
          spanGaps: false,
          paths: bars ? uPlot.paths.bars!({ size: [0.8, 40] }) : undefined,
        })),
      ],
    };
    const plot = new uPlot(opts, [x, ...series.map((s) => s.values)] as uPlot.AlignedData, el);
    const resize = () => plot.setSize({ width: Math.max(320, el.clientWidth), height });
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      plot.destroy();
    };
  }, [JSON.stringify([x, series]), bars, yLabel, height]);
  return html`<div class="chart" role="img" aria-label=${summary} ref=${box}></div>`;
}
