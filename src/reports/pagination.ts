/** Laravel-style pagination: `links` and `meta` beside `data`. */
export interface PageLinks {
  first: string;
  last: string;
  prev: string | null;
  next: string | null;
}

export interface PageMeta {
  current_page: number;
  from: number | null;
  last_page: number;
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
 * Builds the page envelope. `path` is the absolute list URL; `query` holds the list
 * parameters to keep in every link (page is set per link).
 */
export function buildPage<T>(
  rows: T[],
  opts: { page: number; perPage: number; total: number; path: string; query: Record<string, string | number | undefined> },
): Page<T> {
  const { lastPage, offset } = pageWindow(opts.page, opts.perPage, opts.total);
  const link = (page: number) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(opts.query)) if (v !== undefined && v !== '') params.set(k, String(v));
    params.set('page', String(page));
    return `${opts.path}?${params.toString()}`;
  };
  return {
    data: rows,
    links: {
      first: link(1),
      last: link(lastPage),
      prev: opts.page > 1 ? link(Math.min(opts.page - 1, lastPage)) : null,
      next: opts.page < lastPage ? link(opts.page + 1) : null,
    },
    meta: {
      current_page: opts.page,
      from: rows.length ? offset + 1 : null,
      last_page: lastPage,
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
