// The request log's table on PostgreSQL, which replicas share (src/sandbox/store.ts): each append
// inserts its entries and deletes those numbered more than the capacity below its newest, by a range
// of the key that starts above what the process deleted last (a deletion of every row below a bound
// walked every dead entry of the key's index). Every FULL_SWEEP_EVERY-th append starts at the bottom.
// (SQLite keeps the log in memory: these tests run on the PostgreSQL run of the suite.)
import t from 'tap'
import { backend, openTestStorage } from '../helpers.js'
import { requestLogStore, type RequestLogRow } from '../../src/sandbox/store.js'
import type { Db } from '../../src/storage/db.js'

const row = (i: number): RequestLogRow => ({ method: 'GET', path: `/core/n/${i}`, status: 200, clientId: null, entry: JSON.stringify({ i }) })
const paths = async (db: Db): Promise<string[]> =>
  await db.prepare<[], string>('SELECT path FROM sandbox_request_log ORDER BY seq').pluck().all()
const numbered = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, k) => `/core/n/${from + k}`)

if (backend !== 'postgres') {
  t.comment('the request log table is PostgreSQL\'s: these tests run with SANDBOX_TEST_BACKEND=postgres (npm run test:postgres)')
} else {
  t.test('appends keep the newest entries up to the capacity, oldest deleted', async t => {
    const storage = await openTestStorage(t)
    t.teardown(async () => { await storage.close() })
    const store = requestLogStore(storage.db)
    for (let i = 0; i < 30; i += 3) await store.append([row(i), row(i + 1), row(i + 2)], 10)
    t.same(await paths(storage.db), numbered(20, 29))
    t.same((await store.search({ limit: 100 }, 10)).map(e => JSON.parse(e).i), [29, 28, 27, 26, 25, 24, 23, 22, 21, 20])
    t.equal(await store.count(10), 10)
    // A batch larger than the capacity keeps its newest.
    await store.append(Array.from({ length: 25 }, (_, k) => row(100 + k)), 10)
    t.same(await paths(storage.db), numbered(115, 124))
  })

  t.test('entries holding what JSON escapes (line breaks, quotes, backslashes, control characters, lone surrogates) come back as they went', async t => {
    const storage = await openTestStorage(t)
    t.teardown(async () => { await storage.close() })
    const store = requestLogStore(storage.db)
    const values = ['two\nlines\r\n', 'a "quoted" \\ back\\slash', '\u0000\u0001\t\u001f', 'lone \ud800 and \udfff', 'pair \ud83d\ude00', '{"a":[1,"}"]}', '', 'é ü 漢 \u2028\u2029']
    const rows = values.map((v, i) => ({ ...row(i), entry: JSON.stringify({ i, v }) }))
    await store.append(rows, 100)
    t.same((await store.search({ limit: 100 }, 100)).map(e => JSON.parse(e) as unknown).reverse(), values.map((v, i) => ({ i, v })))
    await t.rejects(store.append([{ ...row(99), entry: '{"raw":"\n"}' }], 100), /line break/, 'an entry that is not JSON.stringify\'s text is refused')
    t.equal(await store.count(100), values.length, 'and nothing of it written')
  })

  t.test('two processes appending in turn (each with its own memory of what it deleted) keep the newest of both', async t => {
    const storage = await openTestStorage(t)
    t.teardown(async () => { await storage.close() })
    const stores = [requestLogStore(storage.db), requestLogStore(storage.db)]
    for (let i = 0; i < 60; i += 2) await stores[(i / 2) % 2].append([row(i), row(i + 1)], 30)
    t.same(await paths(storage.db), numbered(30, 59))
    // Fewer at once than the capacity: none of them is numbered low enough to fall in a deleted range.
    await Promise.all(Array.from({ length: 20 }, async (_, k) => { await stores[k % 2].append([row(200 + k)], 30) }))
    t.same(new Set(await paths(storage.db)), new Set([...numbered(50, 59), ...numbered(200, 219)]), 'appends at the same moment keep the newest')
  })

  t.test('a row committed below a range already deleted stays until the append that starts at the bottom', async t => {
    const storage = await openTestStorage(t)
    t.teardown(async () => { await storage.close() })
    const store = requestLogStore(storage.db)
    // The first append starts at the bottom; the next ones above what it deleted.
    for (let i = 0; i < 20; i++) await store.append([row(i)], 5)
    t.same(await paths(storage.db), numbered(15, 19))
    // As an insert left open while newer entries were numbered, then committed: below every range.
    await storage.db.exec("INSERT INTO sandbox_request_log (seq, method, path, status, client_id, entry) VALUES (3, 'GET', '/core/late', 200, NULL, '{}')")
    await store.append([row(20)], 5)
    t.same(await paths(storage.db), ['/core/late', ...numbered(16, 20)], 'a ranged append leaves it')
    t.same((await store.search({ limit: 100 }, 5)).map(e => JSON.parse(e).i), [20, 19, 18, 17, 16], 'reads look at the newest entries only')
    // Appends 22 to 1 000 are ranged; the 1 001st starts at the bottom.
    for (let i = 21; i < 1000; i++) await store.append([row(i)], 5)
    t.ok((await paths(storage.db)).includes('/core/late'), 'kept by the 1 000th append')
    await store.append([row(1000)], 5)
    t.same(await paths(storage.db), numbered(996, 1000), 'deleted by the 1 001st')
  })
}
