// Support for the ledger's tests that go through HTTP alone, at a listening server (in this process
// or a child one): calls as the client or on behalf of a user, a user made ready for quotes and
// transactions, accounts, and funds that arrive by a simulated FPS deposit at an account's details.
import { KYC_PROCESSES } from '../accounts/support.js'

export interface Answer { status: number, body: any }

export interface Http {
  /** A call as the client, or on behalf of `user`; the body as JSON. */
  call: (method: string, path: string, options?: { user?: string, body?: unknown, headers?: Record<string, string> }) => Promise<Answer>
  /** The user-context headers core.create-transaction requires. */
  context: Record<string, string>
  /** Sets the Bearer token calls send. */
  setToken: (token: string) => void
}

export function http (base: string, token: string, serviceName = 'service'): Http {
  let bearer = token
  return {
    async call (method, path, { user, body, headers = {} } = {}) {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${bearer}`,
          ...(user === undefined ? {} : { 'x-on-behalf-of': `user ${user}` }),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers
        },
        body: body === undefined ? undefined : JSON.stringify(body)
      })
      const text = await res.text()
      return { status: res.status, body: text === '' ? undefined : JSON.parse(text) }
    },
    context: { [`x-${serviceName}-user-ip`]: '47.174.97.164', [`x-${serviceName}-user-agent`]: 'ledger-tests/1.0' },
    setToken (token) { bearer = token }
  }
}

const expect = (what: string, answer: Answer, status: number): Answer => {
  if (answer.status !== status) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`)
  return answer
}

/** A GB user created through the API and made ready: KYC forced ok (control API), cooldown skipped, vIBAN terms accepted. */
export async function readyUser (h: Http, email: string): Promise<string> {
  const user = expect('create user', await h.call('POST', '/core/users', {
    headers: h.context,
    body: { email, termsOfService: 'general-gb-fca', primaryCitizenship: 'GB', address: { country: 'GB' } }
  }), 201).body.user.id as string
  for (const process of KYC_PROCESSES) expect(`force ${process}`, await h.call('POST', `/_sandbox/users/${user}/kyc/${process}`, { body: { status: 'ok' } }), 200)
  expect('skip cooldowns', await h.call('PUT', '/core/assets/test-helpers/skip-assets-cooldowns', { user }), 204)
  expect('accept terms', await h.call('POST', '/core/terms-of-service/unique-account-number-viban/accept', { user, headers: h.context }), 201)
  return user
}

export async function newAccount (h: Http, user: string, asset: string): Promise<string> {
  return expect(`account ${asset}`, await h.call('POST', '/core/accounts', { user, body: { label: asset, asset } }), 201).body.account.id as string
}

/** The account's FPS deposit details (PUT deposit-method), as a bank would be told them. */
export async function fpsDetails (h: Http, user: string, accountId: string): Promise<Record<string, string>> {
  const res = await h.call('PUT', `/core/accounts/${accountId}/deposit-method?type=bank&asset=GBP&network=fps`, { user })
  if (res.status !== 200 && res.status !== 201) throw new Error(`deposit method: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body.depositMethod.details
}

/** A simulated FPS deposit to the details: 202 with the deposit. */
export async function fpsDeposit (h: Http, user: string, details: Record<string, string>, amount: string): Promise<Answer> {
  return expect('bank deposit', await h.call('POST', '/core/accounts/test-helpers/bank-deposits', {
    user,
    body: { network: 'fps', sortCode: details.sortCode, accountNumber: details.accountNumber, ...(details.reference === undefined ? {} : { reference: details.reference }), asset: 'GBP', amount }
  }), 202)
}

/** A quote, then the transaction that commits it (with the user context); the transaction's answer. */
export async function trade (h: Http, user: string, quote: Record<string, unknown>): Promise<Answer> {
  const quoted = expect('quote', await h.call('POST', '/core/transactions/quote', { user, body: quote }), 201)
  return await h.call('POST', '/core/transactions', { user, body: { quoteId: quoted.body.quote.id }, headers: h.context })
}
