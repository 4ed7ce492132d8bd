// Lists: the page query every paginated operation takes and the links its answer carries.
import { Type, type Static } from 'typebox'

export const MAX_PER_PAGE = 100
export const DEFAULT_PER_PAGE = 10
/**
 * The last page a list can be asked for (the int32 bound the reference gives `perPage`): far past
 * any list's end, and small enough that the rows it skips stay an exact integer a database takes.
 */
export const MAX_PAGE = 2_147_483_647

export const PageQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1, description: 'The page to answer, from 1 to 2147483647; a page past the last is empty.' })),
  perPage: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PER_PAGE, default: DEFAULT_PER_PAGE, description: 'Items per page, 1 to 100.' }))
})
export type PageQuery = Static<typeof PageQuery>

export const Pagination = Type.Object({
  first: Type.String({ format: 'uri', description: 'The first page.' }),
  prev: Type.Optional(Type.String({ format: 'uri', description: 'The page before; absent on the first page.' })),
  next: Type.Optional(Type.String({ format: 'uri', description: 'The page after; absent on the last page.' }))
}, { $id: 'Pagination', description: 'Absolute links to other pages of the list, keeping every other query parameter.' })
export type Pagination = Static<typeof Pagination>
