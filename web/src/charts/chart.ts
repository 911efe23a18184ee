import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  LinearScale,
  PointElement,
  ScatterController,
  Tooltip,
  type ChartConfiguration,
} from 'chart.js';
import { useEffect, useRef } from 'preact/hooks';

// Only the parts the pages draw (bars and scatter), so the bundle stays small.
Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  LinearScale,
  PointElement,
  ScatterController,
  Tooltip,
);
Chart.defaults.font.family = getComputedStyle(document.documentElement).fontFamily;
Chart.defaults.animation = false;

/** A Chart.js chart bound to a canvas for the lifetime of a component. */
export function useChart(config: () => ChartConfiguration, deps: unknown[]) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!canvas.current) return;
    const chart = new Chart(canvas.current, config());
    return () => chart.destroy();
  }, deps);
  return canvas;
}
