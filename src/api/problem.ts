import type { FastifyReply } from 'fastify';
import { STATUS_CODES } from 'node:http';

/** The one error-body builder (spec 7.1). Clients switch on `status`; `type` is always 'about:blank'. */
export interface ProblemBody {
  type: 'about:blank';
  status: number;
  title: string;
  detail: string;
  [extra: string]: unknown;
}

export const problem = (status: number, detail: string, title?: string, extras: Record<string, unknown> = {}): ProblemBody => ({
  type: 'about:blank',
  status,
  title: title ?? STATUS_CODES[status] ?? 'Error',
  detail,
  ...extras,
});

/** An error thrown from a route or hook and rendered by the app's error handler. */
export class HttpProblem extends Error {
  override name = 'HttpProblem';
  constructor(
    public readonly status: number,
    public readonly detail: string,
    public readonly title?: string,
    public readonly extras: Record<string, unknown> = {},
    public readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
  body(): ProblemBody {
    return problem(this.status, this.detail, this.title, this.extras);
  }
}

export function sendProblem(reply: FastifyReply, p: HttpProblem): FastifyReply {
  for (const [k, v] of Object.entries(p.headers)) reply.header(k, v);
  return reply.code(p.status).type('application/json; charset=utf-8').send(p.body());
}
