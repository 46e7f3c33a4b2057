/**
 * The env-probes.js bundle: the widget's layout measurement alone, for the service's own
 * Chromium to take reference values with (src/captcha/engine-reference.ts).
 */
import { measureProbe } from './env-probes.ts';

(globalThis as unknown as { auditcaptchaMeasure: typeof measureProbe }).auditcaptchaMeasure = measureProbe;
