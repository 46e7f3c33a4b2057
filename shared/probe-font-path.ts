/** Where the service serves the environment proof's font (facade/widget.ts); the widget fetches it from there. */
export const PROBE_FONT_PATH = '/widget-probe-font.otf';
