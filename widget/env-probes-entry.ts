/**
 * The env-probes.js bundle: the widget's layout measurement alone, for the service's own
 * Chromium to take reference values with (src/captcha/engine-reference.ts).
 */
import { measureProbe, referenceValues, type FontBytes } from './env-probes.ts';
import { PROBE_FONT_BASE64 } from '../shared/probe-font.ts';
import type { ProbeBox } from '../src/captcha/env-proof.ts';

const scope = globalThis as unknown as { auditcaptchaReference: unknown; auditcaptchaMeasure: unknown };
/** The font travels inside this bundle: the reference page has no service to fetch it from. */
const font: FontBytes = () => Promise.resolve(Uint8Array.from(atob(PROBE_FONT_BASE64), (c) => c.charCodeAt(0)));
/** What the service's engine measures (with unstable words marked). */
scope.auditcaptchaReference = (probe: ProbeBox) => referenceValues(probe, font);
/** What the widget measures (tests compare the two). */
scope.auditcaptchaMeasure = (probe: ProbeBox) => measureProbe(probe, font);
