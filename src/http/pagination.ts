// Pagination, in one place: which rows a page reads (one more than it shows, to know whether a
// next page exists, so a store reads an index range and never counts) and the answer's links,
// absolute on PUBLIC_URL (the request's own host when it is not set), keeping every other query
// parameter as the client sent it.
import type { FastifyRequest } from 'fastify'
import { requestInvalid } from '../errors.js'
import { DEFAULT_PER_PAGE, MAX_PAGE, MAX_PER_PAGE, type PageQuery, type Pagination } from '../../schemas/lists.js'

export interface Page { page: number, perPage: number }

/** An integer within bounds, else 400 `request_invalid` naming the query parameter and the bound it broke. */
function bounded (value: number, property: string, maximum: number): number {
  if (!Number.isInteger(value)) throw requestInvalid('query', [{ property, rule: 'type', ruleParams: { type: 'integer' } }])
  if (value < 1) throw requestInvalid('query', [{ property, rule: 'minimum', ruleParams: { limit: 1 } }])
  if (value > maximum) throw requestInvalid('query', [{ property, rule: 'maximum', ruleParams: { limit: maximum } }])
  return value
}

/**
 * The page a query asks for. The schema of every paginated operation bounds `page` and `perPage`
 * already (PageQuery); checked again here, the one place every list reads them, so no list can
 * hand a store an offset past what a database takes (`page=1e20` was a 500).
 */
export const pageOf = (query: PageQuery): Page => ({
  page: bounded(query.page ?? 1, 'page', MAX_PAGE),
  perPage: bounded(query.perPage ?? DEFAULT_PER_PAGE, 'perPage', MAX_PER_PAGE)
})

/** The rows a store reads for a page: `limit` is one more than the page shows. */
export const pageWindow = ({ page, perPage }: Page): { offset: number, limit: number } => ({ offset: (page - 1) * perPage, limit: perPage + 1 })

/** A page of rows read with `pageWindow`: the rows to show, and whether there are more. */
export function pageRows<T> (rows: T[], { perPage }: Page): { items: T[], hasNext: boolean } {
  return rows.length > perPage ? { items: rows.slice(0, perPage), hasNext: true } : { items: rows, hasNext: false }
}

/** A page of a list held in memory. */
export function pageSlice<T> (all: readonly T[], page: Page): { items: T[], hasNext: boolean } {
  const { offset, limit } = pageWindow(page)
  return pageRows(all.slice(offset, offset + limit), page)
}

/** The base of absolute links: PUBLIC_URL, or the scheme and host the request came to. */
export function publicBase (publicUrl: string, request: Pick<FastifyRequest, 'protocol' | 'host'>): string {
  return publicUrl !== '' ? publicUrl : `${request.protocol}://${request.host}`
}

/** The answer's links for a page of the list at the request's path. */
export function paginationLinks (base: string, url: string, { page, perPage }: Page, hasNext: boolean): Pagination {
  const q = url.indexOf('?')
  const path = q < 0 ? url : url.slice(0, q)
  const params = new URLSearchParams(q < 0 ? '' : url.slice(q + 1))
  const link = (n: number): string => {
    const kept = new URLSearchParams(params)
    kept.set('page', String(n))
    kept.set('perPage', String(perPage))
    return `${base}${path}?${kept.toString()}`
  }
  const links: Pagination = { first: link(1) }
  if (page > 1) links.prev = link(page - 1)
  if (hasNext) links.next = link(page + 1)
  return links
}

/** The links for a page answered to this request. */
export const paginationFor = (request: FastifyRequest, publicUrl: string, page: Page, hasNext: boolean): Pagination =>
  paginationLinks(publicBase(publicUrl, request), request.url, page, hasNext)
