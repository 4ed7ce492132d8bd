// The status machine's events, as a real listening receiver gets them: created, the hold's
// balance change, then completion or failure with the balances they move, in order.
import t from 'tap'
import { addEndpoint, managementLink, startReceiver } from '../webhooks/support.js'
import { acct, transactionSetup } from './support.js'

interface Delivered { type: string, data: { transaction?: { id: string, status: string, statusDetails?: { reason: string } }, account?: { id: string, balance: { total: string, available: string } } } }

t.test('events of deposits, a completed and a failed transaction arrive in the order of the changes', async t => {
  const s = await transactionSetup(t)
  const receiver = await startReceiver(t)
  const link = await managementLink(s.app)
  await addEndpoint(s.app, link, { url: receiver.url, eventTypes: ['core.transaction.created', 'core.transaction.status-changed', 'core.account.balance-changed'] })

  const funding = await s.fund(s.accounts.GBP, 'GBP', '500')
  const completed = (await s.commit({ quoteId: await s.quoteId({ origin: acct(s.accounts.GBP), destination: acct(s.accounts.BTC), denomination: { asset: 'GBP', amount: '100' } }) })).json().transaction
  await s.advance(5)
  const failed = (await s.commit({ quoteId: await s.quoteId({ origin: acct(s.accounts.GBP), destination: acct(s.accounts.BTC), denomination: { asset: 'GBP', amount: '50' } }) })).json().transaction
  const control = await s.app.inject({ method: 'POST', url: `/_sandbox/transactions/${failed.id}/status`, payload: { status: 'failed', reason: 'insufficient-funds' } })
  t.equal(control.statusCode, 200)

  const received = (await receiver.waitFor(12)).map(r => JSON.parse(r.body) as Delivered)
  const seen = received.map(e => e.type === 'core.account.balance-changed'
    ? `balance ${e.data.account!.id === s.accounts.GBP ? 'GBP' : e.data.account!.id === s.accounts.BTC ? 'BTC' : '?'} ${e.data.account!.balance.total}/${e.data.account!.balance.available}`
    : `${e.type.replace('core.transaction.', '')} ${e.data.transaction!.id === funding ? 'funding' : e.data.transaction!.id === completed.id ? 'trade' : e.data.transaction!.id === failed.id ? 'failing' : '?'} ${e.data.transaction!.status}`)
  const btc = completed.destination.amount.replace(/0+$/, '').replace(/\.$/, '')
  t.same(seen, [
    'created funding processing',
    'status-changed funding completed',
    'balance GBP 500/500',
    'created trade processing',
    'balance GBP 500/400',
    'status-changed trade completed',
    'balance GBP 400/400',
    `balance BTC ${btc}/${btc}`,
    'created failing processing',
    'balance GBP 400/350',
    'status-changed failing failed',
    'balance GBP 400/400'
  ])
  const failedEvent = received.find(e => e.type === 'core.transaction.status-changed' && e.data.transaction?.id === failed.id)
  t.same(failedEvent?.data.transaction?.statusDetails, { reason: 'insufficient-funds' })
})
