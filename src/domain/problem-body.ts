import { STATUS_CODES } from 'node:http';

/**
 * The one error-body builder (spec 7.1), for every process that answers HTTP — the API, and the health and
 * metrics listener of the other roles. Clients switch on `status`; `type` is always 'about:blank'.
 */
export interface ProblemBody {
  type: 'about:blank';
  status: number;
  title: string;
  detail: string;
  [extra: string]: unknown;
}

export const problem = (
  status: number,
  detail: string,
  title?: string,
  extras: Record<string, unknown> = {},
): ProblemBody => ({
  type: 'about:blank',
  status,
  title: title ?? STATUS_CODES[status] ?? 'Error',
  detail,
  ...extras,
});
