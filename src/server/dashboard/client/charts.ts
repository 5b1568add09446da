// uPlot charts: reputation of each agent over tasks, and accuracy per attack per method.
import uPlot from 'uplot';
import { palette } from './format.js';

function width(container: HTMLElement): number {
  return Math.max(320, Math.min(1100, container.clientWidth || 800));
}

/**
 * Line chart of each agent's score after every task (x = task number). The container gets
 * `data-points` (tasks) and `data-series` (agents), which the browser test checks.
 */
export function reputationChart(
  container: HTMLElement,
  taskIds: readonly string[],
  scores: Record<string, Array<number | null>>,
): uPlot {
  container.replaceChildren();
  const agents = Object.keys(scores);
  const x = taskIds.map((_, index) => index + 1);
  const data: uPlot.AlignedData = [x, ...agents.map((agentId) => scores[agentId] ?? [])];
  container.dataset.points = String(x.length);
  container.dataset.series = String(agents.length);
  return new uPlot(
    {
      width: width(container),
      height: 300,
      scales: { x: { time: false }, y: { range: [0, 1] } },
      axes: [
        { label: 'task', values: (_, ticks) => ticks.map((tick) => (Number.isInteger(tick) ? String(tick) : '')) },
        { label: 'reputation' },
      ],
      series: [
        { label: 'task', value: (_, value) => (value === null ? '–' : `${value} (${taskIds[value - 1] ?? ''})`) },
        ...agents.map((agentId, index) => ({
          label: agentId,
          stroke: palette[index % palette.length],
          width: 2,
          points: { show: x.length <= 60 },
        })),
      ],
    },
    data,
    container,
  );
}

/** Accuracy of each method per attack (x = attack, `clean` first). */
export function attackChart(
  container: HTMLElement,
  attacks: readonly string[],
  methods: Record<string, Array<number | null>>,
): uPlot {
  container.replaceChildren();
  const names = Object.keys(methods);
  const x = attacks.map((_, index) => index);
  container.dataset.points = String(x.length);
  container.dataset.series = String(names.length);
  return new uPlot(
    {
      width: width(container),
      height: 320,
      scales: { x: { time: false, range: [-0.5, Math.max(0.5, attacks.length - 0.5)] }, y: { range: [0, 1] } },
      axes: [
        { label: 'attack', splits: () => x, values: (_, ticks) => ticks.map((tick) => attacks[tick] ?? '') },
        { label: 'accuracy' },
      ],
      series: [
        { label: 'attack', value: (_, value) => (value === null ? '–' : (attacks[value] ?? '')) },
        ...names.map((name, index) => ({
          label: name,
          stroke: palette[index % palette.length],
          width: 2,
          points: { show: true, size: 8 },
        })),
      ],
    },
    [x, ...names.map((name) => methods[name] ?? [])],
    container,
  );
}
