import { useEffect, useState } from 'preact/hooks';

/** Where the console is: `#/sites/sk_x?a=b` gives path ['sites', 'sk_x'] and its query. */
export interface Place {
  path: string[];
  query: URLSearchParams;
}

function parse(hash: string): Place {
  const [path, query = ''] = hash.replace(/^#\/?/, '').split('?');
  return { path: path.split('/').filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(query) };
}

/** The current place, re-read on every hash change (the browser's back and forward work). */
export function usePlace(): Place {
  const [place, setPlace] = useState(() => parse(location.hash));
  useEffect(() => {
    const update = () => setPlace(parse(location.hash));
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return place;
}

export function navigate(hash: string): void {
  location.hash = hash;
}
