// Every combination of method, stored state, If-Match and If-None-Match, checked the way a client
// sees it: status, body, ETag, and what is stored afterwards. The expected outcome is RFC 9110
// section 13 written out once below, independently of the server's code.
import t from 'tap'
import { build } from '../helpers.js'
import { etag, metadataFixture } from './fixture.js'

const INITIAL = { color: 'blue', n: 1 }
const OTHER = { color: 'red' }
const PUT_BODY = { color: 'green' }
const PATCH_BODY = [{ op: 'replace', path: '/color', value: 'green' }]
const PATCHED = { color: 'green', n: 1 }

const IF_MATCH = {
  absent: undefined,
  matching: etag(INITIAL),
  'not matching': etag(OTHER),
  // A weak tag never passes If-Match; the strong one later in the list does.
  'a list': `W/${etag(INITIAL)}, ${etag(OTHER)}, ${etag(INITIAL)}`,
  '*': '*'
} as const
const IF_NONE_MATCH = {
  absent: undefined,
  'matching (strong)': etag(INITIAL),
  'matching (W/)': `W/${etag(INITIAL)}`,
  'a list that matches': `${etag(OTHER)} , W/${etag(INITIAL)}`,
  'not matching': `${etag(OTHER)}, W/${etag(OTHER)}`,
  '*': '*'
} as const
type IfMatch = keyof typeof IF_MATCH
type IfNoneMatch = keyof typeof IF_NONE_MATCH
type Method = 'GET' | 'PUT' | 'PATCH' | 'DELETE'

const NOT_FOUND = { code: 'entity_not_found', message: 'The entity metadata cannot be found', details: { entity: 'metadata' } }
const IF_MATCH_FAILED = { code: 'precondition_failed', message: 'The If-Match header value does not match the current metadata' }
const IF_NONE_MATCH_FAILED = { code: 'precondition_failed', message: 'The If-None-Match header value matches the current metadata' }

interface Expected { status: number, body: unknown, etag?: string, after: unknown }

function expected (method: Method, present: boolean, ifMatch: IfMatch, ifNoneMatch: IfNoneMatch): Expected {
  const before = present ? INITIAL : undefined
  // A request that fails without its preconditions ignores them (13.2.1).
  if (!present && method !== 'PUT') return { status: 404, body: NOT_FOUND, after: before }
  // If-Match: `*` or a strong match of the current tag; nothing current means false.
  const ifMatchHolds = ifMatch === 'absent' || (present && ifMatch !== 'not matching')
  if (!ifMatchHolds) return { status: 412, body: IF_MATCH_FAILED, after: before }
  // If-None-Match: a weak match or `*` against a current representation.
  const ifNoneMatchMatches = ifNoneMatch !== 'absent' && ifNoneMatch !== 'not matching' && present
  if (ifNoneMatchMatches) {
    return method === 'GET'
      ? { status: 304, body: '', etag: etag(INITIAL), after: before }
      : { status: 412, body: IF_NONE_MATCH_FAILED, after: before }
  }
  switch (method) {
    case 'GET': return { status: 200, body: { metadata: INITIAL }, etag: etag(INITIAL), after: before }
    case 'PUT': return { status: present ? 200 : 201, body: { metadata: PUT_BODY }, etag: etag(PUT_BODY), after: PUT_BODY }
    case 'PATCH': return { status: 200, body: { metadata: PATCHED }, etag: etag(PATCHED), after: PATCHED }
    case 'DELETE': return { status: 204, body: '', after: undefined }
  }
}

t.test('conditional requests: every combination', async t => {
  const app = await build(t)
  let cases = 0
  for (const method of ['GET', 'PUT', 'PATCH', 'DELETE'] as const) {
    for (const present of [false, true]) {
      for (const ifMatch of Object.keys(IF_MATCH) as IfMatch[]) {
        for (const ifNoneMatch of Object.keys(IF_NONE_MATCH) as IfNoneMatch[]) {
          cases++
          const name = `${method}, metadata ${present ? 'present' : 'absent'}, If-Match ${ifMatch}, If-None-Match ${ifNoneMatch}`
          // A fresh user per case: every case starts from a known state.
          const f = await metadataFixture(t, app)
          if (present) {
            const setup = await f.send('PUT', { payload: INITIAL })
            t.equal(setup.statusCode, 201, `${name}: setup`)
          }
          const headers: Record<string, string> = {}
          if (IF_MATCH[ifMatch] !== undefined) headers['if-match'] = IF_MATCH[ifMatch]
          if (IF_NONE_MATCH[ifNoneMatch] !== undefined) headers['if-none-match'] = IF_NONE_MATCH[ifNoneMatch]
          const payload = method === 'PUT' ? PUT_BODY : method === 'PATCH' ? PATCH_BODY : undefined
          const res = await f.send(method, { headers, payload })

          const want = expected(method, present, ifMatch, ifNoneMatch)
          t.equal(res.statusCode, want.status, `${name}: status`)
          if (typeof want.body === 'string') t.equal(res.body, want.body, `${name}: no body`)
          else t.same(res.json(), want.body, `${name}: body`)
          t.equal(res.headers.etag, want.etag, `${name}: ETag`)
          t.same(await f.stored(), want.after, `${name}: stored`)
        }
      }
    }
  }
  t.equal(cases, 4 * 2 * 5 * 6)
})

t.test('If-Match uses the strong comparison: a weak tag of the current revision fails', async t => {
  const f = await metadataFixture(t)
  await f.send('PUT', { payload: INITIAL })
  for (const method of ['GET', 'PUT', 'PATCH', 'DELETE'] as const) {
    const payload = method === 'PUT' ? PUT_BODY : method === 'PATCH' ? PATCH_BODY : undefined
    const res = await f.send(method, { headers: { 'if-match': `W/${etag(INITIAL)}` }, payload })
    t.equal(res.statusCode, 412, method)
    t.same(res.json(), IF_MATCH_FAILED)
  }
  t.same(await f.stored(), INITIAL, 'nothing changed')
})

t.test('If-Match with a list that holds no current tag fails; If-Match is evaluated before If-None-Match', async t => {
  const f = await metadataFixture(t)
  await f.send('PUT', { payload: INITIAL })
  const list = await f.send('PUT', { headers: { 'if-match': `${etag(OTHER)}, "0000"` }, payload: PUT_BODY })
  t.equal(list.statusCode, 412)
  const both = await f.send('GET', { headers: { 'if-match': etag(OTHER), 'if-none-match': etag(INITIAL) } })
  t.equal(both.statusCode, 412, 'If-Match fails first, so no 304')
  t.same(both.json(), IF_MATCH_FAILED)
  t.same(await f.stored(), INITIAL)
})

t.test('an ETag from a response works as the next request\'s If-Match, once', async t => {
  const f = await metadataFixture(t)
  const created = await f.send('PUT', { payload: { v: 1 } })
  const first = await f.send('PUT', { headers: { 'if-match': created.headers.etag as string }, payload: { v: 2 } })
  t.equal(first.statusCode, 200)
  const stale = await f.send('PUT', { headers: { 'if-match': created.headers.etag as string }, payload: { v: 3 } })
  t.equal(stale.statusCode, 412, 'the old tag no longer matches')
  const patched = await f.send('PATCH', { headers: { 'if-match': first.headers.etag as string }, payload: [{ op: 'add', path: '/w', value: true }] })
  t.equal(patched.statusCode, 200)
  t.same(patched.json(), { metadata: { v: 2, w: true } })
  const deleted = await f.send('DELETE', { headers: { 'if-match': patched.headers.etag as string } })
  t.equal(deleted.statusCode, 204)
  t.equal(await f.stored(), undefined)
})

t.test('HEAD answers like GET without a body, 304 included', async t => {
  const f = await metadataFixture(t)
  await f.send('PUT', { payload: INITIAL })
  const head = await f.app.inject({ method: 'HEAD', url: '/core/users/me/metadata', headers: f.headers })
  t.equal(head.statusCode, 200)
  t.equal(head.headers.etag, etag(INITIAL))
  t.equal(head.body, '')
  const notModified = await f.app.inject({ method: 'HEAD', url: '/core/users/me/metadata', headers: { ...f.headers, 'if-none-match': '*' } })
  t.equal(notModified.statusCode, 304)
  t.equal(notModified.headers.etag, etag(INITIAL))
})

t.test('malformed If-Match or If-None-Match is 400 request_invalid naming the header, before any change', async t => {
  const f = await metadataFixture(t)
  await f.send('PUT', { payload: INITIAL })
  for (const [header, value] of [['if-match', 'abc'], ['if-match', '*, "a"'], ['if-none-match', '"unterminated'], ['if-none-match', 'W/abc'], ['if-match', '"a" "b"']] as const) {
    const res = await f.send('PUT', { headers: { [header]: value }, payload: PUT_BODY })
    t.equal(res.statusCode, 400, `${header}: ${value}`)
    t.equal(res.json().code, 'request_invalid')
    t.equal(res.json().details.context, 'headers')
    t.equal(res.json().details.violations[0].property, header)
  }
  t.same(await f.stored(), INITIAL)
})

t.test('empty list elements are allowed (RFC 9110 5.6.1); an empty If-Match matches nothing', async t => {
  const f = await metadataFixture(t)
  await f.send('PUT', { payload: INITIAL })
  const sparse = await f.send('GET', { headers: { 'if-none-match': `, ,${etag(INITIAL)},` } })
  t.equal(sparse.statusCode, 304)
  const empty = await f.send('PUT', { headers: { 'if-match': '' }, payload: PUT_BODY })
  t.equal(empty.statusCode, 412)
  t.same(await f.stored(), INITIAL)
})

t.test('auth and 404 come before preconditions', async t => {
  const f = await metadataFixture(t)
  await f.send('PUT', { payload: INITIAL })
  const noToken = await f.app.inject({ method: 'PUT', url: '/core/users/me/metadata', headers: { 'if-match': etag(OTHER), 'content-type': 'application/json' }, payload: JSON.stringify(PUT_BODY) })
  t.equal(noToken.statusCode, 401)
  const unknownAccount = await f.send('PUT', { url: '/core/accounts/5b3c1f1e-8d1a-4c1e-9f6e-1a2b3c4d5e6f/metadata', headers: { 'if-match': etag(OTHER) }, payload: PUT_BODY })
  t.equal(unknownAccount.statusCode, 404)
  t.same(unknownAccount.json().details, { entity: 'account' })
})
