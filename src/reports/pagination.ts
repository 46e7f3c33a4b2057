/** Laravel-style pagination: `links` and `meta` beside `data`. */
export interface PageLinks {
  first: string;
  last: string;
  prev: string | null;
  next: string | null;
}

/** One entry of Laravel's `meta.links`: previous, each page number or `...`, next. */
export interface PageLink {
  url: string | null;
  label: string;
  active: boolean;
}

export interface PageMeta {
  current_page: number;
  from: number | null;
  last_page: number;
  links: PageLink[];
  path: string;
  per_page: number;
  to: number | null;
  total: number;
}

export interface Page<T> {
  data: T[];
  links: PageLinks;
  meta: PageMeta;
}

/** Where the rows of `page` start, and whether the page holds any (an out-of-range page holds none). */
export function pageWindow(page: number, perPage: number, total: number) {
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const offset = (page - 1) * perPage;
  return { lastPage, offset, empty: offset >= total };
}

/**
 * The address of a list route in links: under PUBLIC_URL when configured, else root-relative.
 * Never from the request's Host or X-Forwarded-Host, which a client controls.
 */
export function listPath(publicUrl: string | undefined, path: string): string {
  return `${publicUrl ?? ''}${path}`;
}

/**
 * The page numbers Laravel's paginator lists in `meta.links` (UrlWindow, three on each side):
 * every page when there are fewer than 14, else the start, a window round the current page
 * and the end, with `'...'` for each gap.
 */
export function pageWindowLinks(current: number, last: number): Array<number | '...'> {
  const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
  const side = 3;
  if (last < side * 2 + 8) return range(1, last);
  const window = side + 4;
  if (current <= window) return [...range(1, window + side), '...', last - 1, last];
  if (current > last - window) return [1, 2, '...', ...range(last - (window + (side - 1)), last)];
  return [1, 2, '...', ...range(current - side, current + side), '...', last - 1, last];
}

/**
 * Builds the page envelope. `path` is the list URL (see {@link listPath}); `query` holds the
 * list parameters to keep in every link (page is set per link).
 */
export function buildPage<T>(
  rows: T[],
  opts: {
    page: number;
    perPage: number;
    total: number;
    path: string;
    query: Record<string, string | number | undefined>;
  },
): Page<T> {
  const { lastPage, offset } = pageWindow(opts.page, opts.perPage, opts.total);
  const link = (page: number) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(opts.query)) if (v !== undefined && v !== '') params.set(k, String(v));
    params.set('page', String(page));
    return `${opts.path}?${params.toString()}`;
  };
  const prev = opts.page > 1 ? link(Math.min(opts.page - 1, lastPage)) : null;
  const next = opts.page < lastPage ? link(opts.page + 1) : null;
  const numbered: PageLink[] = pageWindowLinks(opts.page, lastPage).map((n) =>
    n === '...'
      ? { url: null, label: '...', active: false }
      : { url: link(n), label: String(n), active: n === opts.page },
  );
  return {
    data: rows,
    links: { first: link(1), last: link(lastPage), prev, next },
    meta: {
      current_page: opts.page,
      from: rows.length ? offset + 1 : null,
      last_page: lastPage,
      links: [
        { url: prev, label: '&laquo; Previous', active: false },
        ...numbered,
        { url: next, label: 'Next &raquo;', active: false },
      ],
      path: opts.path,
      per_page: opts.perPage,
      to: rows.length ? offset + rows.length : null,
      total: opts.total,
    },
  };
}

/** Escapes LIKE wildcards so a search term matches literally (backslash is PostgreSQL's default escape). */
export function likeContains(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
