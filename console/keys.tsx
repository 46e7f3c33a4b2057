import { useState } from 'preact/hooks';
import { confirmedWith, trpc } from './api.ts';
import { withTypedKey } from './confirm-key.tsx';
import { ConfirmButton, ErrorNotice, PageTitle, Secret, formatDate, useAction, useLoad } from './ui.tsx';

/** The account's API keys: last use, a new key (shown once), revocation. */
export function KeysPage() {
  const { data, error, reload } = useLoad(() => trpc.keys.list.query().then((r) => r.data), []);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<string | null>(null);
  const create = useAction(async (e: Event) => {
    e.preventDefault();
    const made = await withTypedKey('Creating a key', (typed) =>
      trpc.keys.create.mutate({ name }, confirmedWith(typed)),
    );
    if (!made) return;
    setCreated(made.data.key);
    setName('');
    reload();
  });
  const revoke = useAction(async (id: number) => {
    const done = await withTypedKey('Revoking a key', (typed) => trpc.keys.revoke.mutate({ id }, confirmedWith(typed)));
    if (done) reload();
  });
  return (
    <>
      <PageTitle>API keys</PageTitle>
      <ErrorNotice error={error} />
      {data && (
        <div class="scroll" tabIndex={0} role="region" aria-label="API keys, scrollable">
          <table>
            <caption class="visually-hidden">Your API keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {data.map((k) => (
                <tr key={k.id} data-testid={`key-${k.prefix}`}>
                  <td>
                    {k.name}
                    {k.current ? ' (this session)' : ''}
                  </td>
                  <td>
                    <code>{k.prefix}</code>
                  </td>
                  <td>{formatDate(k.created_at)}</td>
                  <td>{formatDate(k.last_used_at)}</td>
                  <td>
                    {k.revoked_at ? (
                      `Revoked ${formatDate(k.revoked_at)}`
                    ) : (
                      <ConfirmButton
                        label="Revoke"
                        confirm={`Revoke ${k.name}? Calls and console sessions with it stop at once.`}
                        onConfirm={() => revoke.run(k.id)}
                      />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ErrorNotice error={revoke.error} />
      <h2>Create a key</h2>
      <form onSubmit={(e) => void create.run(e)}>
        <label>
          Name
          <input required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <button type="submit" disabled={create.pending}>
          Create key
        </button>
      </form>
      <ErrorNotice error={create.error} />
      {created && <Secret label="New API key" value={created} />}
    </>
  );
}
