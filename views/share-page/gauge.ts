/** The score as a ring gauge in SVG (no script): the arc's length is the score. */
import { escapeHtml } from './escape.ts';

const radius = 52;
const circumference = 2 * Math.PI * radius;

/** An SVG ring filled to `score` of 100, coloured by `grade` (CSS classes good/decent/bad). */
export function scoreGauge(score: number, grade: string): string {
  const clamped = Math.max(0, Math.min(100, Math.round(score)));
  const filled = ((circumference * clamped) / 100).toFixed(2);
  return `<svg class="gauge ${escapeHtml(grade)}" viewBox="0 0 120 120" role="img" aria-label="Score ${clamped} of 100">
<circle class="track" cx="60" cy="60" r="${radius}" fill="none" stroke-width="10"/>
<circle class="arc" cx="60" cy="60" r="${radius}" fill="none" stroke-width="10" stroke-linecap="round" stroke-dasharray="${filled} ${circumference.toFixed(2)}" transform="rotate(-90 60 60)"/>
<text class="score" x="60" y="64" text-anchor="middle">${clamped}</text>
<text class="of" x="60" y="84" text-anchor="middle">of 100</text>
</svg>`;
}
