/** The histogram of one result row, with Chart.js reduced to its bar chart. */
import { BarController, BarElement, CategoryScale, Chart, LinearScale, Tooltip } from 'chart.js';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip);

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
