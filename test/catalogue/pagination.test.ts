// Pagination through a probe route that uses the shared pieces as a paginated operation would:
// the page query schema (checked by the app's validation), the in-memory page and the links.
import t from 'tap'
import { Type } from 'typebox'
import type { FastifyInstance } from 'fastify'
import { build } from '../helpers.js'
import { setup } from '../api-setup.js'
import { MAX_PAGE, PageQuery, Pagination } from '../../schemas/lists.js'
import { pageOf, pageSlice, paginationFor, paginationLinks, pageRows, pageWindow } from '../../src/http/pagination.js'

const ITEMS = Array.from({ length: 250 }, (_, i) => i + 1)

async function probe (app: FastifyInstance): Promise<void> {
  app.get('/probe/items', {
    schema: {
      querystring: Type.Intersect([PageQuery, Type.Object({ kind: Type.Optional(Type.String()) })]),
      response: { 200: Type.Object({ items: Type.Array(Type.Integer()), pagination: Pagination }) }
    }
  }, async (request) => {
    const page = pageOf(request.query as PageQuery)
    const { items, hasNext } = pageSlice(ITEMS, page)
    return { items, pagination: paginationFor(request, app.config.publicUrl, page, hasNext) }
  })
  // A list whose own schema forgets the bounds: the shared parsing still holds them.
  app.get('/probe/unbounded', {
    schema: { querystring: Type.Object({ page: Type.Optional(Type.Number()), perPage: Type.Optional(Type.Number()) }) }
  }, async (request) => {
    const page = pageOf(request.query as PageQuery)
    return { window: pageWindow(page) }
  })
}

const get = (app: FastifyInstance, query: string) => app.inject({ method: 'GET', url: `/probe/items${query}` })

t.test('first, middle and last page; links on PUBLIC_URL', async t => {
  const app = await build(t, { publicUrl: 'https://sandbox.example.com' }, { plugins: [probe] })
  const first = await get(app, '')
  t.equal(first.statusCode, 200)
  t.same(first.json().items, ITEMS.slice(0, 10), 'default: page 1 of 10')
  t.same(first.json().pagination, {
    first: 'https://sandbox.example.com/probe/items?page=1&perPage=10',
    next: 'https://sandbox.example.com/probe/items?page=2&perPage=10'
  }, 'no prev on the first page')

  const middle = await get(app, '?page=3&perPage=20')
  t.same(middle.json().items, ITEMS.slice(40, 60))
  t.same(middle.json().pagination, {
    first: 'https://sandbox.example.com/probe/items?page=1&perPage=20',
    prev: 'https://sandbox.example.com/probe/items?page=2&perPage=20',
    next: 'https://sandbox.example.com/probe/items?page=4&perPage=20'
  })

  const last = await get(app, '?page=13&perPage=20')
  t.same(last.json().items, ITEMS.slice(240, 250))
  t.same(last.json().pagination, {
    first: 'https://sandbox.example.com/probe/items?page=1&perPage=20',
    prev: 'https://sandbox.example.com/probe/items?page=12&perPage=20'
  }, 'no next on the last page')

  const exact = await get(app, '?page=25&perPage=10')
  t.equal(exact.json().items.length, 10)
  t.notOk('next' in exact.json().pagination, 'a full last page has no next either')

  const beyond = await get(app, '?page=99')
  t.same(beyond.json().items, [])
  t.notOk('next' in beyond.json().pagination)
})

t.test('perPage 1 and 100', async t => {
  const app = await build(t, { publicUrl: 'http://localhost:8080' }, { plugins: [probe] })
  const one = await get(app, '?perPage=1&page=250')
  t.same(one.json().items, [250])
  t.same(one.json().pagination, { first: 'http://localhost:8080/probe/items?perPage=1&page=1', prev: 'http://localhost:8080/probe/items?perPage=1&page=249' })
  const hundred = await get(app, '?perPage=100&page=2')
  t.same(hundred.json().items, ITEMS.slice(100, 200))
  t.equal(hundred.json().pagination.next, 'http://localhost:8080/probe/items?perPage=100&page=3')
})

t.test('out-of-range values are 400 request_invalid naming the parameter', async t => {
  const app = await build(t, {}, { plugins: [probe] })
  for (const [query, property, rule] of [
    ['?page=0', 'page', 'minimum'], ['?page=-1', 'page', 'minimum'], ['?perPage=0', 'perPage', 'minimum'],
    ['?perPage=101', 'perPage', 'maximum'], ['?page=abc', 'page', 'type'], ['?perPage=1.5', 'perPage', 'type']
  ]) {
    const res = await get(app, query)
    t.equal(res.statusCode, 400, query)
    t.match(res.json(), { code: 'request_invalid', message: 'The request has missing or invalid parameters', details: { context: 'query', violations: [{ property, rule }] } }, query)
  }
})

t.test('a page past 2^53, or past the last page a list takes, is 400 naming `page`, even when a route\'s schema forgets the bound', async t => {
  const app = await build(t, {}, { plugins: [probe] })
  const violation = (property: string, rule: string, limit?: number) => ({
    code: 'request_invalid',
    message: 'The request has missing or invalid parameters',
    details: { context: 'query', violations: [limit === undefined ? { property, rule } : { property, rule, ruleParams: { limit } }] }
  })
  for (const path of ['/probe/items', '/probe/unbounded']) {
    for (const page of ['1e20', '9007199254740993', '1e308', String(MAX_PAGE + 1)]) {
      const res = await app.inject({ method: 'GET', url: `${path}?page=${page}` })
      t.equal(res.statusCode, 400, `${path} page=${page}`)
      t.same(res.json(), violation('page', 'maximum', MAX_PAGE), `${path} page=${page}`)
    }
    const huge = await app.inject({ method: 'GET', url: `${path}?perPage=1e20` })
    t.same(huge.json(), violation('perPage', 'maximum', 100), `${path} perPage=1e20`)
  }
  const fraction = await app.inject({ method: 'GET', url: '/probe/unbounded?page=1.5' })
  t.same(fraction.json().details.violations, [{ property: 'page', rule: 'type', ruleParams: { type: 'integer' } }])
  const last = await app.inject({ method: 'GET', url: `/probe/unbounded?page=${MAX_PAGE}&perPage=100` })
  t.equal(last.statusCode, 200)
  t.same(last.json().window, { offset: (MAX_PAGE - 1) * 100, limit: 101 }, 'the last page a list takes skips an exact integer of rows')
  const beyond = await get(app, `?page=${MAX_PAGE}`)
  t.same(beyond.json().items, [], 'the last page a list takes answers, empty')
})

t.test('the paginated operations answer a hostile page with 400, never a 500', async t => {
  const s = await setup(t)
  const account = (await s.call('POST', '/core/accounts', { payload: { label: 'GBP', asset: 'GBP' } }))
  t.equal(account.statusCode, 201)
  const lists = [
    '/core/accounts', '/core/transactions', `/core/accounts/${account.json().account.id as string}/transactions`,
    '/core/statements/transactions?period=one-month&year=2025&month=1'
  ]
  for (const list of lists) {
    const join = list.includes('?') ? '&' : '?'
    for (const page of ['1e20', '9007199254740993', '-1e20', '1e400']) {
      const res = await s.call('GET', `${list}${join}page=${page}`)
      t.equal(res.statusCode, 400, `${list} page=${page}`)
      t.equal(res.json().code, 'request_invalid')
      t.equal(res.json().details.violations[0].property, 'page')
    }
    const last = await s.call('GET', `${list}${join}page=${MAX_PAGE}&perPage=100`)
    t.ok(last.statusCode < 500, `${list}: the last page a list takes is no 5xx`)
  }
  const accounts = await s.call('GET', `/core/accounts?page=${MAX_PAGE}`)
  t.equal(accounts.statusCode, 200)
  t.same(accounts.json().accounts, [])
  const transactions = await s.call('GET', `/core/transactions?page=${MAX_PAGE}`)
  t.equal(transactions.statusCode, 200)
  t.same(transactions.json().transactions, [])
})

t.test('links keep every other query parameter, as sent; without PUBLIC_URL they use the request\'s host', async t => {
  const app = await build(t, {}, { plugins: [probe] })
  const res = await app.inject({ method: 'GET', url: '/probe/items?kind=a%20b&page=2&x=1&x=2', headers: { host: 'sandbox.test:9000' } })
  t.same(res.json().pagination, {
    first: 'http://sandbox.test:9000/probe/items?kind=a+b&page=1&x=1&x=2&perPage=10',
    prev: 'http://sandbox.test:9000/probe/items?kind=a+b&page=1&x=1&x=2&perPage=10',
    next: 'http://sandbox.test:9000/probe/items?kind=a+b&page=3&x=1&x=2&perPage=10'
  })
})

t.test('a store reads one row more than a page shows', async t => {
  t.same(pageWindow({ page: 3, perPage: 10 }), { offset: 20, limit: 11 })
  t.same(pageRows([1, 2, 3], { page: 1, perPage: 2 }), { items: [1, 2], hasNext: true })
  t.same(pageRows([1, 2], { page: 1, perPage: 2 }), { items: [1, 2], hasNext: false })
  t.same(paginationLinks('https://x.test', '/a', { page: 1, perPage: 5 }, false), { first: 'https://x.test/a?page=1&perPage=5' })
})
