/** What is fetched beside a page (robots.txt, a missing path, the sitemap, the http variant): data the page context reads. */
/** Outcome of one auxiliary fetch. */
export interface AuxiliaryFetch {
  /** The URL requested. */
  url: string;
  /** Final status, when a response arrived. */
  status?: number;
  /** Final URL after redirects, when a response arrived. */
  finalUrl?: string;
  /** Why no response arrived. */
  error?: string;
}

/** Everything fetched beside the page. */
export interface AuxiliaryResults {
  /** robots.txt; `text` only for 2xx answers. */
  robots: AuxiliaryFetch & { text?: string };
  /** The random, surely missing path. */
  notFound: AuxiliaryFetch;
  /** The sitemap, from robots.txt `Sitemap:` or /sitemap.xml. */
  sitemap: AuxiliaryFetch & { source: 'robots.txt' | 'default'; found: boolean };
  /** The http:// variant of an https page (absent for http pages). */
  httpVariant?: AuxiliaryFetch;
}
