/** The charts, with Chart.js reduced to a bar chart (a row's histogram) and a line chart (a series per zone). */
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip } from 'chart.js';
import type { SeriesData } from './series.ts';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip, LineController, LineElement, PointElement, Legend);

/** Tableau 10: lines of neighbouring zones stay apart. */
const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];
/** More zones than this: no legend (the tooltip names the line). */
const LEGEND_MAX = 12;

export class Histogram {
  private chart: Chart<'bar'> | null = null;

  constructor(private readonly canvas: HTMLCanvasElement) {}

  show(labels: string[], counts: number[], label: string): void {
    if (this.chart) {
      this.chart.data.labels = labels;
      this.chart.data.datasets[0]!.data = counts;
      this.chart.data.datasets[0]!.label = label;
      this.chart.update();
      return;
    }
    this.chart = new Chart(this.canvas, {
      type: 'bar',
      data: {
        labels,
        datasets: [
          { label, data: counts, backgroundColor: '#21918c', hoverBackgroundColor: '#3b528b', borderWidth: 0, barPercentage: 1, categoryPercentage: 0.95 },
        ],
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: {
          x: { ticks: { maxRotation: 45, autoSkip: true, font: { size: 10 } }, grid: { display: false } },
          y: { beginAtZero: true, ticks: { font: { size: 10 } } },
        },
        plugins: { tooltip: { enabled: true } },
      },
    });
  }

  clear(): void {
    this.chart?.destroy();
    this.chart = null;
  }
}

/**
 * One line per zone over a category axis (times as the answer writes them: no date adapter, and a calendar
 * that is not the real one keeps its labels). The data Chart.js was given is mirrored in the canvas's
 * `data-series` (JSON: labels and each line's name, zone and points) for tests and for anyone inspecting.
 */
export class SeriesChart {
  private chart: Chart<'line', { x: string; y: number | null }[], string> | null = null;

  constructor(private readonly canvas: HTMLCanvasElement) {}

  show(data: SeriesData, axes: { x: string; y: string }): void {
    this.chart?.destroy();
    this.chart = new Chart(this.canvas, {
      type: 'line',
      data: {
        labels: data.labels,
        datasets: data.lines.map((line, i) => {
          const color = PALETTE[i % PALETTE.length]!;
          return { label: line.name, data: line.points, borderColor: color, backgroundColor: color, borderWidth: 1.5, pointRadius: 2.5, spanGaps: false };
        }),
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: {
          x: { type: 'category', title: { display: true, text: axes.x, font: { size: 10 } }, ticks: { maxRotation: 45, autoSkip: true, font: { size: 10 } } },
          y: { title: { display: true, text: axes.y, font: { size: 10 } }, ticks: { font: { size: 10 } } },
        },
        plugins: {
          legend: { display: data.lines.length <= LEGEND_MAX, position: 'bottom', labels: { boxWidth: 10, font: { size: 10 } } },
          tooltip: { enabled: true, mode: 'nearest', intersect: false },
        },
      },
    });
    const given = this.chart.data;
    this.canvas.dataset['series'] = JSON.stringify({
      labels: given.labels,
      lines: given.datasets.map((d, i) => ({ name: d.label, zone: data.lines[i]!.zone, points: d.data })),
    });
  }

  /** The line at this index drawn thicker (-1: all alike). */
  highlight(line: number): void {
    if (!this.chart) return;
    this.chart.data.datasets.forEach((d, i) => (d.borderWidth = i === line ? 3.5 : 1.5));
    this.chart.update('none');
  }

  clear(): void {
    this.chart?.destroy();
    this.chart = null;
    delete this.canvas.dataset['series'];
  }
}
