/** The server-rendered share pages: public interface. */
export { escapeHtml } from './escape.ts';
export { renderMessagePage, renderPasswordPage } from './messages.ts';
export { renderReportPage } from './report.ts';
