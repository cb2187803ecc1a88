// A small live line (uPlot): no axes, no legend, the newest value beside it.
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export function Sparkline({ label, t, values, unit }: { label: string; t: number[]; values: Array<number | null>; unit: string }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  useEffect(() => {
    if (!box.current) return;
    const color = getComputedStyle(box.current).getPropertyValue('--accent').trim() || '#3b82f6';
    plot.current = new uPlot(
      {
        width: 140,
        height: 32,
        cursor: { show: false },
        legend: { show: false },
        scales: { x: { time: false } },
        axes: [{ show: false }, { show: false }],
        series: [{}, { stroke: color, width: 1.5, spanGaps: true, points: { show: false } }],
      },
      [[], []],
      box.current,
    );
    return () => {
      plot.current?.destroy();
      plot.current = null;
    };
  }, []);
  useEffect(() => {
    plot.current?.setData([t, values]);
  }, [t, values]);
  const latest = values.at(-1);
  return (
    <div className="spark">
      <span className="spark-label">{label}</span>
      <div ref={box} aria-hidden="true" />
      <span className="spark-value">{latest === undefined || latest === null ? '—' : `${latest.toFixed(latest < 10 ? 1 : 0)} ${unit}`}</span>
    </div>
  );
}
