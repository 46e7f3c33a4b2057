import escapeHtml from 'escape-html';
import { GATEWAY_PREFIX } from '../src/gateway/gateway.ts';

const style = `body{font:1rem/1.5 system-ui,sans-serif;margin:0;padding:2rem 1rem;color:#1a1a1a;background:#fff}
main{max-width:36rem;margin:0 auto}h1{font-size:1.5rem;line-height:1.25}
.contact{border-left:4px solid #555;padding-left:.8rem}
button{font:inherit;padding:.5rem 1rem}
:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}
@media (prefers-color-scheme:dark){body{background:#111;color:#eee}.contact{border-color:#aaa}}`;

function page(nonce: string, title: string, body: string, tail = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style nonce="${nonce}">${style}</style>
</head>
<body>
<main>
${body}
</main>${tail}
</body>
</html>`;
}

function contactBlock(contact: string): string {
  if (!contact.trim()) return '';
  return `<h2>Need help?</h2>\n<p class="contact">${escapeHtml(contact)}</p>`;
}

/**
 * The challenge page a navigation without clearance gets, on the protected host itself. It
 * says in plain words what is happening and why, runs the widget's managed check (with its
 * own no-image path), and sends the token to `/.auditcaptcha/clearance`, which sets the
 * clearance cookie and returns to `returnTo`. Keyboard and screen reader: one heading
 * structure, a labelled form, a live status, a real submit button.
 */
export function renderChallengePage(input: {
  nonce: string;
  sitekey: string;
  host: string;
  returnTo: string;
  contact: string;
  widgetVersion: string;
}): string {
  const { nonce } = input;
  const body = `<h1>Checking that you are a person</h1>
<p>You asked for <strong>${escapeHtml(input.host)}</strong>. This site lets people through after a short automatic check,
because automated programs were taking more than their share. It usually finishes on its own in a few seconds.</p>
<p>Once you pass, this browser is remembered on this site for a while, so you will not see this page again on every visit.
The check stores one cookie for this site only and nothing else.</p>
<form method="post" action="${GATEWAY_PREFIX}/clearance" id="gateway-form" aria-describedby="gateway-status">
<input type="hidden" name="return" value="${escapeHtml(input.returnTo)}">
<div data-sitekey="${escapeHtml(input.sitekey)}" data-mode="managed" data-callback="auditcaptchaGatewayDone"></div>
<p id="gateway-status" role="status" aria-live="polite">Start the check with the button above. When it says you are verified, this page continues by itself; if it does not, press Continue.</p>
<button type="submit">Continue</button>
</form>
<noscript><p>This check needs JavaScript. Turn it on for this site, or contact the site as shown below.</p></noscript>
<p>If the picture is hard to see, the check offers a way to verify without it.</p>
${contactBlock(input.contact)}`;
  const tail = `
<script nonce="${nonce}">window.auditcaptchaGatewayDone=function(){var s=document.getElementById('gateway-status');if(s)s.textContent='Verified. Continuing to the page you asked for.';document.getElementById('gateway-form').submit();};</script>
<script src="${GATEWAY_PREFIX}/widget.js?v=${escapeHtml(input.widgetVersion)}" async defer></script>`;
  return page(nonce, 'Checking that you are a person', body, tail);
}

/** A short page for a failed clearance, with a way to try again. */
export function renderRetryPage(input: { nonce: string; reason: string; returnTo: string; contact: string }): string {
  const again = `${GATEWAY_PREFIX}/challenge?return=${encodeURIComponent(input.returnTo)}`;
  return page(
    input.nonce,
    'The check did not go through',
    `<h1>The check did not go through</h1>
<p>${escapeHtml(input.reason)}</p>
<p><a href="${escapeHtml(again)}">Try the check again</a>.</p>
${contactBlock(input.contact)}`,
  );
}

/** The Content-Security-Policy of both pages: our scripts and API calls from this host only. */
export function gatewayPageCsp(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'self' 'nonce-${nonce}' 'wasm-unsafe-eval'`,
    "connect-src 'self'",
    "img-src 'self' blob:",
    "worker-src 'self' blob:",
    `style-src 'nonce-${nonce}'`,
    "font-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
