import { trpc } from './api.ts';
import { ErrorNotice, PageTitle, formatDate, useAction, useLoad } from './ui.tsx';

/**
 * The account's webhooks: what each listens to and whether failed deliveries disabled it, with
 * a way to enable it again (registration and deletion stay in the API: docs/audits.md).
 */
export function WebhooksPage() {
  const { data, error, reload } = useLoad(() => trpc.webhooks.list.query().then((r) => r.data), []);
  const enable = useAction(async (id: number) => {
    await trpc.webhooks.enable.mutate({ id: String(id) });
    reload();
  });
  return (
    <>
      <PageTitle>Webhooks</PageTitle>
      <ErrorNotice error={error} />
      {data && data.length === 0 && <p>No webhooks. Register one with POST /api/v1/webhooks.</p>}
      {data && data.length > 0 && (
        <div class="scroll" tabIndex={0} role="region" aria-label="Webhooks, scrollable">
          <table>
            <caption class="visually-hidden">Your webhooks</caption>
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Events</th>
                <th scope="col">Created</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {data.map((h) => (
                <tr key={h.id} data-testid={`webhook-${h.id}`}>
                  <td>
                    <code>{h.url}</code>
                  </td>
                  <td>{h.events.join(', ')}</td>
                  <td>{formatDate(h.created_at)}</td>
                  <td>
                    {h.enabled ? (
                      h.failures_in_row > 0 ? (
                        `Enabled (${h.failures_in_row} failed deliveries in a row)`
                      ) : (
                        'Enabled'
                      )
                    ) : (
                      <>
                        <p>
                          Disabled {formatDate(h.disabled_at)}: {h.disabled_reason}
                        </p>
                        <button type="button" disabled={enable.pending} onClick={() => void enable.run(h.id)}>
                          Enable again
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ErrorNotice error={enable.error} />
    </>
  );
}
