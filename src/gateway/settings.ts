import { AppError, type FieldErrors } from '../errors.ts';
import { parseCidr } from './networks.ts';
import { checkPathPattern, checkSafePattern } from './patterns.ts';
import type { GatewayRule, GatewaySettings } from '../entities/site.entity.ts';

export const DEFAULT_CLEARANCE_TTL = 86_400;
export const DEFAULT_THRESHOLDS = { challenge: 10, deny: 50 };

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** A host name: dot-separated labels of lower-case letters, digits and hyphens (or an IPv4 address). */
function isHostName(h: string): boolean {
  return h.length >= 1 && h.length <= 253 && h.split('.').every((label) => LABEL.test(label));
}
const HEADER_NAME = /^[a-z0-9-]{1,64}$/;
const METHOD = /^[A-Z]{1,16}$/;

/**
 * Checks what zod's shape cannot (host names, patterns, CIDR blocks, weights) and normalises
 * (host names lower-case, methods upper-case, header names lower-case). A 422 names each bad
 * field by its path, such as `rules.2.user_agent`.
 */
export function validateGateway(input: GatewaySettings): GatewaySettings {
  const errors: FieldErrors = {};
  const fail = (field: string, message: string) => (errors[field] ??= []).push(message);
  const hosts = [...new Set(input.hosts.map((h) => h.trim().toLowerCase()))];
  hosts.forEach((h, i) => {
    if (!isHostName(h)) fail(`hosts.${i}`, `"${h.slice(0, 80)}" is not a host name (no scheme, port or path).`);
  });
  if (input.thresholds.deny < input.thresholds.challenge)
    fail('thresholds.deny', 'The deny threshold may not be below the challenge threshold.');
  const rules = input.rules.map((rule, i): GatewayRule => {
    const at = `rules.${i}`;
    if (rule.path !== undefined) {
      const why = checkPathPattern(rule.path);
      if (why) fail(`${at}.path`, `The path ${why}.`);
    }
    if (rule.user_agent !== undefined) {
      const why = checkSafePattern(rule.user_agent);
      if (why) fail(`${at}.user_agent`, `The pattern ${why}.`);
    }
    const headers: Record<string, string> = {};
    for (const [name, pattern] of Object.entries(rule.headers ?? {})) {
      const lower = name.toLowerCase();
      if (!HEADER_NAME.test(lower)) fail(`${at}.headers`, `"${name.slice(0, 64)}" is not a header name.`);
      const why = pattern === '' ? null : checkSafePattern(pattern);
      if (why) fail(`${at}.headers.${lower}`, `The pattern ${why}.`);
      headers[lower] = pattern;
    }
    (rule.networks ?? []).forEach((n, j) => {
      if (!parseCidr(n)) fail(`${at}.networks.${j}`, `"${n.slice(0, 60)}" is not an address or CIDR block.`);
    });
    const methods = rule.methods?.map((m) => m.toUpperCase());
    methods?.forEach((m, j) => {
      if (!METHOD.test(m)) fail(`${at}.methods.${j}`, `"${m.slice(0, 16)}" is not an HTTP method.`);
    });
    if (rule.action === 'weigh' && rule.weight === undefined) fail(`${at}.weight`, 'A weigh rule needs a weight.');
    if (rule.action !== 'weigh' && rule.weight !== undefined) fail(`${at}.weight`, 'Only a weigh rule has a weight.');
    return {
      ...rule,
      ...(rule.methods ? { methods } : {}),
      ...(rule.headers ? { headers } : {}),
    };
  });
  if (Object.keys(errors).length) throw new AppError('ERR_VALIDATION', Object.values(errors)[0][0], { errors });
  return { ...input, hosts, rules };
}
