import { useEffect, useRef, useState } from 'preact/hooks';

/** An open request for the key: what it is for, and where the typed key (or null) goes. */
interface Ask {
  action: string;
  resolve: (key: string | null) => void;
}

let open: ((ask: Ask) => void) | undefined;

/**
 * Asks the person for their API key again before `action` (a change that creates or changes a
 * credential: the session alone may not make it). Resolves with the typed key, or null when
 * they cancel. The key is kept only for the one call it confirms.
 */
function askForKey(action: string): Promise<string | null> {
  return new Promise((resolve) => (open ? open({ action, resolve }) : resolve(null)));
}

/** Runs `call` with the API key typed again for `action`; undefined when the person cancelled. */
export async function withTypedKey<T>(action: string, call: (key: string) => Promise<T>): Promise<T | undefined> {
  const key = await askForKey(action);
  return key === null ? undefined : call(key);
}

/**
 * The dialog {@link askForKey} opens, mounted once by the app: modal (focus kept inside), its
 * field focused, Escape or Cancel closing it, focus given back to what opened it.
 */
export function KeyDialog() {
  const [ask, setAsk] = useState<Ask | null>(null);
  const [key, setKey] = useState('');
  const field = useRef<HTMLInputElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  useEffect(() => {
    open = (next) => {
      opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      setKey('');
      setAsk(next);
    };
    return () => {
      open = undefined;
    };
  }, []);
  useEffect(() => {
    if (ask) field.current?.focus();
  }, [ask]);
  if (!ask) return null;
  const close = (value: string | null) => {
    ask.resolve(value);
    setAsk(null);
    setKey('');
    opener.current?.focus();
  };
  return (
    <div class="dialog-backdrop">
      <div
        class="dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="confirm-key-title"
        aria-describedby="confirm-key-why"
        onKeyDown={(e) => {
          if (e.key === 'Escape') close(null);
          if (e.key !== 'Tab') return;
          // Focus stays in the dialog while it is open: Tab wraps around its controls.
          const items = [...e.currentTarget.querySelectorAll<HTMLElement>('input, button')];
          const [first, last] = [items[0], items[items.length - 1]];
          if (e.shiftKey && document.activeElement === first) {
            e.preventDefault();
            last.focus();
          } else if (!e.shiftKey && document.activeElement === last) {
            e.preventDefault();
            first.focus();
          }
        }}
      >
        <h2 id="confirm-key-title">Confirm with your API key</h2>
        <p id="confirm-key-why">
          {ask.action} creates or changes a credential, so the console asks for an API key of this account again.
        </p>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (key.trim()) close(key.trim());
          }}
        >
          <label>
            Your API key
            <input
              ref={field}
              type="password"
              autoComplete="off"
              spellcheck={false}
              required
              value={key}
              onInput={(e) => setKey(e.currentTarget.value)}
            />
          </label>
          <button type="submit">Confirm</button>{' '}
          <button type="button" onClick={() => close(null)}>
            Cancel
          </button>
        </form>
      </div>
    </div>
  );
}
