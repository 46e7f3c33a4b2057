/** The share pages that are not a report: the password form and plain messages. */
import { escapeHtml } from './escape.ts';
import { layout } from './layout.ts';

/** The password form of a password-protected report. */
export function renderPasswordPage(shareId: string, error?: string): string {
  return layout(
    'Password required',
    `<h1>This report is protected</h1>
<p>Enter the report's password to see it.</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/reports/${escapeHtml(shareId)}">
<label>Password <input type="password" name="password" required autocomplete="current-password" autofocus></label>
<button type="submit">Show report</button>
</form>`,
  );
}

/** A plain message page (not found, too many attempts). */
export function renderMessagePage(title: string, message: string): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>`);
}
