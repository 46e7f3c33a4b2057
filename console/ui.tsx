import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorMessage } from './api.ts';

/** A failure or a notice, read out by screen readers as it appears. */
export function Notice(props: { kind: 'error' | 'ok' | 'info'; children: ComponentChildren }) {
  return (
    <p class={`notice notice-${props.kind}`} role={props.kind === 'error' ? 'alert' : 'status'}>
      {props.children}
    </p>
  );
}

/** The error of a call, as a sentence (never a stack). */
export function ErrorNotice(props: { error: unknown }) {
  return props.error ? <Notice kind="error">{errorMessage(props.error)}</Notice> : null;
}

/** A secret shown once, with a copy button; the text stays selectable for browsers without the clipboard API. */
export function Secret(props: { label: string; value: string; note?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.value);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <div class="secret" role="group" aria-label={props.label}>
      <p>
        <strong>{props.label}</strong> {props.note ?? 'Shown once: copy it now.'}
      </p>
      <code class="secret-value" data-testid="secret">
        {props.value}
      </code>{' '}
      <button type="button" onClick={() => void copy()}>
        Copy
      </button>
      <span role="status">{copied ? ' Copied.' : ''}</span>
    </div>
  );
}

/** A button asking for a second, explicit confirmation before it acts. */
export function ConfirmButton(props: { label: string; confirm: string; onConfirm: () => Promise<void> | void }) {
  const [asking, setAsking] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <button type="button" class="danger" onClick={() => setAsking(true)}>
        {props.label}
      </button>
    );
  }
  return (
    <span class="confirm" role="group" aria-label={props.confirm}>
      <span>{props.confirm}</span>{' '}
      <button
        type="button"
        class="danger"
        ref={confirmRef}
        onClick={() => {
          setAsking(false);
          void props.onConfirm();
        }}
      >
        Yes, {props.label.toLowerCase()}
      </button>{' '}
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

/** Runs an async call with its pending state and error, for forms and buttons. */
export function useAction<A extends unknown[], R>(fn: (...args: A) => Promise<R>) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (...args: A): Promise<R | undefined> => {
    setPending(true);
    setError(null);
    try {
      return await fn(...args);
    } catch (err) {
      setError(err);
      return undefined;
    } finally {
      setPending(false);
    }
  };
  return { pending, error, run };
}

/** Loads data when `deps` change; `reload` fetches again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setError(null);
    load().then(
      (d) => live && setData(d),
      (err: unknown) => live && setError(err),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { data, error, reload: () => setTick((t) => t + 1) };
}

/** A page's heading, focused when the page opens so screen readers announce it. */
export function PageTitle(props: { children: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    ref.current?.focus();
  }, []);
  return (
    <h1 tabIndex={-1} ref={ref}>
      {props.children}
    </h1>
  );
}

export const formatDate = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'never');
