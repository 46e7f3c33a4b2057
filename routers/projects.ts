import { z } from 'zod';
import { apiKeyProcedure, router } from './trpc.ts';
import { deleted, oneOf, pageNumber, paginated, perPage, searchTerm, sortDirection } from './schemas.ts';
import { deleteProject, describeProject, listProjects } from '../src/reports/projects.ts';
import { buildPage, listPath } from '../src/reports/pagination.ts';
import { notFound } from '../src/errors.ts';

const projectItem = z.object({
  project: z.string(),
  reports: z.number().int(),
  score: z.number().int(),
  result: z.enum(['good', 'decent', 'bad']),
  created_at: z.string(),
});

export const projectsRouter = router({
  /** The caller's projects, paginated, searchable by name. */
  list: apiKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/api/v1/projects', summary: 'List projects', tags: ['projects'] } })
    .input(
      z.object({
        search: searchTerm,
        search_by: oneOf('search_by', ['project']).default('project'),
        sort_by: oneOf('sort_by', ['created_at', 'project']).default('created_at'),
        sort: sortDirection,
        per_page: perPage,
        page: pageNumber,
      }),
    )
    .output(paginated(projectItem))
    .query(async ({ ctx, input }) => {
      const offset = (input.page - 1) * input.per_page;
      const { rows, total } = await listProjects(ctx.em, ctx.user.id, {
        search: input.search || undefined,
        sortBy: input.sort_by,
        sort: input.sort,
        perPage: input.per_page,
        offset,
      });
      const page = buildPage(rows.map(describeProject), {
        page: input.page,
        perPage: input.per_page,
        total,
        path: listPath(ctx.config.PUBLIC_URL, '/api/v1/projects'),
        query: {
          search: input.search || undefined,
          search_by: input.search_by,
          sort_by: input.sort_by,
          sort: input.sort,
          per_page: input.per_page,
        },
      });
      return { ...page, status: 200 as const };
    }),

  /** Deletes a project and all of its reports. */
  delete: apiKeyProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/api/v1/projects/{project}',
        summary: 'Delete a project and its reports',
        tags: ['projects'],
      },
    })
    .input(z.object({ project: z.string().min(1).max(253) }))
    .output(deleted('project', z.string()))
    .mutation(async ({ ctx, input }) => {
      if (!(await deleteProject(ctx.em, ctx.user.id, input.project))) throw notFound('Project');
      return { id: input.project, object: 'project' as const, deleted: true as const, status: 200 as const };
    }),
});
