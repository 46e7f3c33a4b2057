import { Migration } from '@mikro-orm/migrations';

/**
 * Reports in phpRank's shape (issue 12). Each stored report whose `results` are the old arrays
 * by category becomes one object keyed by check id, `{passed, importance, value, errors?,
 * category, details}`, under phpRank's ids and importances; `url` loses its scheme, `www.` and
 * a bare root slash (the full address stays in `results.seo_friendly_url.value`); the score is
 * recomputed with the weights in force (ANALYZER_WEIGHTS, default high 10, medium 5, low 0) and
 * every report is graded with the new bands (good from 80, decent from 49). Project aggregates
 * are recomputed from their reports. Everything is one statement per step, in the migration's
 * transaction. The tables below are frozen copies: later changes to the checks do not change
 * what this migration did.
 */

/** old id -> [new id, importance]; ids not listed keep their id and importance. */
const renamed: Record<string, [string, string]> = {
  title: ['title', 'high'],
  meta_description: ['meta_description', 'high'],
  h1: ['headings', 'high'],
  content_keywords: ['content_keywords', 'high'],
  image_alt: ['image_keywords', 'high'],
  seo_friendly_url: ['seo_friendly_url', 'high'],
  not_found_page: ['404_page', 'high'],
  robots_txt: ['robots', 'high'],
  noindex: ['noindex', 'high'],
  in_page_links: ['in_page_links', 'medium'],
  language: ['language', 'medium'],
  favicon: ['favicon', 'medium'],
  compression: ['text_compression', 'high'],
  load_time: ['load_time', 'medium'],
  page_size: ['page_size', 'medium'],
  requests: ['http_requests', 'medium'],
  image_format: ['image_format', 'medium'],
  deferred_scripts: ['defer_javascript', 'low'],
  dom_size: ['dom_size', 'low'],
  https: ['https_encryption', 'high'],
  mixed_content: ['mixed_content', 'medium'],
  server_signature: ['server_signature', 'medium'],
  unsafe_cross_origin_links: ['unsafe_cross_origin_links', 'medium'],
  plaintext_emails: ['plaintext_email', 'low'],
  structured_data: ['structured_data', 'medium'],
  viewport: ['meta_viewport', 'medium'],
  charset: ['charset', 'medium'],
  sitemap: ['sitemap', 'low'],
  social_links: ['social', 'low'],
  content_length: ['content_length', 'low'],
  text_html_ratio: ['text_html_ratio', 'low'],
  inline_css: ['inline_css', 'low'],
  deprecated_tags: ['deprecated_html_tags', 'low'],
};

/** new id -> phpRank's error key (title and headings are decided per report below). */
const errorKeys: Record<string, string> = {
  meta_description: 'missing',
  content_keywords: 'missing',
  image_keywords: 'missing',
  seo_friendly_url: 'bad_format',
  '404_page': 'missing',
  noindex: 'missing',
  in_page_links: 'too_many',
  language: 'missing',
  favicon: 'missing',
  text_compression: 'missing',
  load_time: 'too_slow',
  page_size: 'too_large',
  http_requests: 'too_many',
  image_format: 'bad_format',
  defer_javascript: 'missing',
  dom_size: 'too_many',
  https_encryption: 'missing',
  structured_data: 'missing',
  meta_viewport: 'missing',
  charset: 'missing',
  social: 'missing',
  content_length: 'too_few',
  text_html_ratio: 'too_small',
  deprecated_html_tags: 'bad_tags',
};

const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

function weightsInForce(): Record<'high' | 'medium' | 'low', number> {
  const weights = { high: 10, medium: 5, low: 0 };
  try {
    const custom = JSON.parse(process.env['ANALYZER_WEIGHTS'] || '{}') as Record<string, unknown>;
    for (const k of ['high', 'medium', 'low'] as const) {
      const value = custom[k];
      if (typeof value === 'number') weights[k] = value;
    }
  } catch {
    // the service refuses a bad ANALYZER_WEIGHTS at start; defaults here
  }
  return weights;
}

export class Migration20261122220300 extends Migration {
  override async up(): Promise<void> {
    const ids = Object.entries(renamed)
      .map(([o, [n, imp]]) => `(${lit(o)}, ${lit(n)}, ${lit(imp)})`)
      .join(', ');
    const keys = Object.entries(errorKeys)
      .map(([id, key]) => `(${lit(id)}, ${lit(key)})`)
      .join(', ');
    const w = weightsInForce();
    this.addSql(`
with old as (
  select id, results from "reports" where jsonb_typeof(results -> 'seo') = 'array'
),
ids(old_id, new_id, importance) as (values ${ids}),
keys(id, error_key) as (values ${keys}),
checks as (
  select o.id as report_id,
         coalesce(m.new_id, e ->> 'id') as check_id,
         coalesce(m.importance, e ->> 'importance') as importance,
         coalesce((e ->> 'passed')::boolean, false) as passed,
         coalesce(e -> 'value', 'null'::jsonb) as value,
         coalesce(e -> 'details', '[]'::jsonb) as details,
         e -> 'category' as category
  from old o
  cross join lateral jsonb_each(o.results) as c(category, list)
  cross join lateral jsonb_array_elements(case when jsonb_typeof(c.list) = 'array' then c.list else '[]'::jsonb end) as e
  left join ids m on m.old_id = e ->> 'id'
),
entries as (
  select c.report_id, c.check_id, c.importance, c.passed,
         jsonb_build_object('passed', c.passed, 'importance', c.importance, 'value', c.value)
         || case when c.passed then '{}'::jsonb else jsonb_build_object('errors', jsonb_build_object(
              case
                when c.check_id = 'title' and (c.value = 'null'::jsonb or c.value = '""'::jsonb) then 'missing'
                when c.check_id = 'title' and c.details::text like '%<title>%' then 'too_many'
                when c.check_id = 'title' then 'length'
                when c.check_id = 'headings' and jsonb_typeof(c.value) = 'array' and jsonb_array_length(c.value) > 1 then 'too_many'
                when c.check_id = 'headings' and jsonb_typeof(c.value) = 'array' and jsonb_array_length(c.value) = 1 then 'duplicate'
                when c.check_id = 'headings' then 'missing'
                else coalesce(k.error_key, 'failed')
              end,
              'null'::jsonb)) end
         || jsonb_build_object('category', c.category, 'details', c.details) as entry,
         case c.importance when 'high' then ${w.high} when 'medium' then ${w.medium} when 'low' then ${w.low} else 0 end as weight
  from checks c left join keys k on k.id = c.check_id
),
shaped as (
  select report_id, jsonb_object_agg(check_id, entry) as results,
         sum(weight) as total, sum(case when passed then weight else 0 end) as passed
  from entries group by report_id
)
update "reports" r
set results = coalesce(s.results, '{}'::jsonb),
    score = case when coalesce(s.total, 0) > 0 then round(100.0 * s.passed / s.total)::int else r.score end
from old o left join shaped s on s.report_id = o.id
where r.id = o.id;`);
    // url as phpRank stores it: no scheme, no leading www., no slash of a bare root path.
    this.addSql(`
update "reports" set url = case when u.rest ~ '^[^/?#]*/$' then left(u.rest, -1) else u.rest end
from (select id, regexp_replace(regexp_replace(url, '^https?://', '', 'i'), '^www\\.', '', 'i') as rest from "reports" where url ~* '^https?://') u
where "reports".id = u.id;`);
    this.addSql(`
update "reports" set result = case when score >= 80 then 'good' when score >= 49 then 'decent' else 'bad' end
where result is distinct from (case when score >= 80 then 'good' when score >= 49 then 'decent' else 'bad' end);`);
    this.addSql(`
update "projects" p
set score_sum = a.score_sum, good_count = a.good, decent_count = a.decent, bad_count = a.bad
from (
  select user_id, project, sum(score) as score_sum,
         count(*) filter (where result = 'good') as good,
         count(*) filter (where result = 'decent') as decent,
         count(*) filter (where result = 'bad') as bad
  from "reports" group by user_id, project
) a
where p.user_id = a.user_id and p.name = a.project;`);
  }

  override async down(): Promise<void> {
    // Back to arrays by category under the old ids. Scores, grades and the scheme of `url`
    // (taken back from results.seo_friendly_url.value where present) are not restored exactly.
    const ids = Object.entries(renamed)
      .map(([o, [n]]) => `(${lit(o)}, ${lit(n)})`)
      .join(', ');
    this.addSql(`
with ids(old_id, new_id) as (values ${ids}),
flat as (
  select r.id as report_id, e.value -> 'category' as category,
         jsonb_build_object('id', coalesce(m.old_id, e.key), 'category', e.value -> 'category', 'importance', e.value -> 'importance',
                            'passed', e.value -> 'passed', 'value', e.value -> 'value', 'details', coalesce(e.value -> 'details', '[]'::jsonb)) as item
  from "reports" r cross join lateral jsonb_each(r.results) e left join ids m on m.new_id = e.key
  where jsonb_typeof(r.results -> 'seo') is distinct from 'array'
),
grouped as (
  select report_id, jsonb_build_object(
    'seo', coalesce(jsonb_agg(item) filter (where category = '"seo"'), '[]'::jsonb),
    'performance', coalesce(jsonb_agg(item) filter (where category = '"performance"'), '[]'::jsonb),
    'security', coalesce(jsonb_agg(item) filter (where category = '"security"'), '[]'::jsonb),
    'miscellaneous', coalesce(jsonb_agg(item) filter (where category = '"miscellaneous"'), '[]'::jsonb)) as results
  from flat group by report_id
)
update "reports" r set results = g.results,
  url = coalesce(nullif(r.results -> 'seo_friendly_url' ->> 'value', ''), 'http://' || r.url)
from grouped g where r.id = g.report_id;`);
  }
}
