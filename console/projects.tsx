import { useState } from 'preact/hooks';
import { trpc } from './api.ts';
import { ConfirmButton, ErrorNotice, PageTitle, formatDate, useAction, useLoad } from './ui.tsx';
import { Pager } from './reports.tsx';

/** Projects (a report's host): search, sort, pages, their grades, deletion with their reports. */
export function ProjectsPage() {
  const [search, setSearch] = useState('');
  const [sort, setSort] = useState('created_at:desc');
  const [page, setPage] = useState(1);
  const [applied, setApplied] = useState({ search, sort });
  const { data, error, reload } = useLoad(() => {
    const [sortBy, direction] = applied.sort.split(':');
    return trpc.projects.list.query({
      search: applied.search || undefined,
      sort_by: sortBy,
      sort: direction,
      per_page: '25',
      page,
    });
  }, [applied, page]);
  const remove = useAction(async (project: string) => {
    await trpc.projects.delete.mutate({ project });
    reload();
  });
  return (
    <>
      <PageTitle>Projects</PageTitle>
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setPage(1);
          setApplied({ search, sort });
        }}
      >
        <label>
          Search projects
          <input type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
        </label>
        <label>
          Sort
          <select value={sort} onChange={(e) => setSort(e.currentTarget.value)}>
            <option value="created_at:desc">Newest first</option>
            <option value="created_at:asc">Oldest first</option>
            <option value="project:asc">Name A-Z</option>
          </select>
        </label>
        <button type="submit">Apply</button>
      </form>
      <ErrorNotice error={error} />
      <ErrorNotice error={remove.error} />
      {data && data.data.length === 0 && <p>No projects yet: create a report.</p>}
      {data && data.data.length > 0 && (
        <>
          <div class="scroll" tabIndex={0} role="region" aria-label="Projects, scrollable">
            <table>
              <caption class="visually-hidden">Projects</caption>
              <thead>
                <tr>
                  <th scope="col">Project</th>
                  <th scope="col">Reports</th>
                  <th scope="col">Score</th>
                  <th scope="col">Grade</th>
                  <th scope="col">Created</th>
                  <th scope="col">Delete</th>
                </tr>
              </thead>
              <tbody>
                {data.data.map((p) => (
                  <tr key={p.project}>
                    <td>
                      <a href={`#/reports?project=${encodeURIComponent(p.project)}`}>{p.project}</a>
                    </td>
                    <td>{p.reports}</td>
                    <td>{p.score}</td>
                    <td>
                      <span class={`grade grade-${p.result}`}>{p.result}</span>
                    </td>
                    <td>{formatDate(p.created_at)}</td>
                    <td>
                      <ConfirmButton
                        label="Delete"
                        confirm={`Delete ${p.project} and its ${p.reports} reports?`}
                        onConfirm={() => remove.run(p.project)}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={data.meta.current_page} last={data.meta.last_page} total={data.meta.total} onPage={setPage} />
        </>
      )}
    </>
  );
}
