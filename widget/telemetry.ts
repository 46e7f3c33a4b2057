/**
 * The only facts about the visitor the widget sends, and only the ones the risk model reads:
 * the `navigator.webdriver` flag, time since navigation start and a count of pointer and key
 * presses on the page (no coordinates, keys, targets or timings).
 */
export interface Telemetry {
  webdriver: boolean;
  time_on_page_ms: number;
  interactions: number;
}

let interactions = 0;
let watching = false;

/** Starts counting presses; called once when the script loads. */
export function watchInteractions(): void {
  if (watching) return;
  watching = true;
  const count = () => {
    interactions++;
  };
  for (const type of ['pointerdown', 'keydown']) addEventListener(type, count, { capture: true, passive: true });
}

export function telemetry(): Telemetry {
  return {
    webdriver: navigator.webdriver === true,
    time_on_page_ms: Math.min(86_400_000, Math.round(performance.now())),
    interactions: Math.min(86_400_000, interactions),
  };
}
