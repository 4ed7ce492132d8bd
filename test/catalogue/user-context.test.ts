import t from 'tap'
import { Type } from 'typebox'
import type { FastifyInstance } from 'fastify'
import { build } from '../helpers.js'
import { AcceptLanguageHeader, UserContextHeaders } from '../../schemas/headers.js'
import { acceptLanguage, requireUserContext, userContext } from '../../src/http/user-context.js'

async function probe (app: FastifyInstance): Promise<void> {
  app.get('/probe/context', {
    schema: { headers: Type.Intersect([UserContextHeaders(app.config.serviceName), AcceptLanguageHeader]) }
  }, async (request) => {
    const context = userContext(request, app.config.serviceName)
    const locale = acceptLanguage(request.headers['accept-language'])
    if (request.headers['x-require'] === 'yes') requireUserContext(context, ['ip', 'agent'], app.config.serviceName)
    return { context, locale }
  })
}

t.test('user-context headers are read under the service\'s name and checked by their formats', async t => {
  const app = await build(t, { serviceName: 'uphold' }, { plugins: [probe] })
  const ok = await app.inject({
    method: 'GET',
    url: '/probe/context',
    headers: {
      'x-uphold-user-ip': '2001:db8::1',
      'x-uphold-user-agent': 'Mozilla/5.0 (X11)',
      'x-uphold-user-origin': 'https://example.com',
      'x-uphold-user-country': 'US',
      'x-uphold-user-subdivision': 'US-CA',
      'x-uphold-user-city': 'San Francisco'
    }
  })
  t.equal(ok.statusCode, 200)
  t.same(ok.json(), {
    context: { ip: '2001:db8::1', agent: 'Mozilla/5.0 (X11)', origin: 'https://example.com', country: 'US', subdivision: 'US-CA', city: 'San Francisco' },
    locale: 'en'
  })
  t.same((await app.inject({ method: 'GET', url: '/probe/context', headers: { 'x-uphold-user-ip': '47.174.97.164' } })).json().context, { ip: '47.174.97.164' })

  for (const [name, value] of [
    ['x-uphold-user-ip', '300.1.1.1'], ['x-uphold-user-ip', 'localhost'], ['x-uphold-user-country', 'us'],
    ['x-uphold-user-subdivision', 'California'], ['x-uphold-user-city', ' padded ']
  ]) {
    const res = await app.inject({ method: 'GET', url: '/probe/context', headers: { [name]: value } })
    t.equal(res.statusCode, 400, `${name}: ${value}`)
    t.match(res.json(), { code: 'request_invalid', details: { context: 'headers', violations: [{ property: name }] } })
  }
})

t.test('a header required by rule is 409 operation_not_allowed naming each missing one', async t => {
  const app = await build(t, { serviceName: 'uphold' }, { plugins: [probe] })
  const none = await app.inject({ method: 'GET', url: '/probe/context', headers: { 'x-require': 'yes' } })
  t.equal(none.statusCode, 409)
  t.same(none.json(), {
    code: 'operation_not_allowed',
    message: 'Request not allowed due to missing user context: send the X-Uphold-User-Ip and X-Uphold-User-Agent headers',
    details: { reasons: ['missing-user-ip-header', 'missing-user-agent-header'] }
  })
  const agentOnly = await app.inject({ method: 'GET', url: '/probe/context', headers: { 'x-require': 'yes', 'x-uphold-user-ip': '1.2.3.4' } })
  t.same(agentOnly.json(), {
    code: 'operation_not_allowed',
    message: 'Request not allowed due to missing user context: send the X-Uphold-User-Agent header',
    details: { reasons: ['missing-user-agent-header'] }
  })
})

t.test('the message names the headers under the configured SERVICE_NAME, as a caller must send them', async t => {
  for (const [serviceName, ip, agent] of [['service', 'X-Service-User-Ip', 'X-Service-User-Agent'], ['my-bank', 'X-My-Bank-User-Ip', 'X-My-Bank-User-Agent']]) {
    const app = await build(t, { serviceName }, { plugins: [probe] })
    const none = await app.inject({ method: 'GET', url: '/probe/context', headers: { 'x-require': 'yes' } })
    t.equal(none.json().message, `Request not allowed due to missing user context: send the ${ip} and ${agent} headers`, serviceName)
    const sent = await app.inject({ method: 'GET', url: '/probe/context', headers: { 'x-require': 'yes', [ip]: '1.2.3.4', [agent]: 'curl/8' } })
    t.equal(sent.statusCode, 200, `${serviceName}: the headers the message names are the ones read`)
  }
})

t.test('Accept-Language: supported locales, q-values, and 409 locale_invalid', async t => {
  t.equal(acceptLanguage(undefined), 'en')
  t.equal(acceptLanguage('en-GB'), 'en-GB')
  t.equal(acceptLanguage('pt-pt'), 'pt-PT', 'tags compare case-insensitively')
  t.equal(acceptLanguage('fr-FR, es;q=0.8, en;q=0.5'), 'es', 'the preferred supported one')
  t.equal(acceptLanguage('de, *;q=0.1'), 'en')
  t.equal(acceptLanguage('en;q=0, pt'), 'pt', 'q=0 means not acceptable')
  const app = await build(t, {}, { plugins: [probe] })
  for (const locale of ['en', 'en-US', 'en-GB', 'pt', 'pt-PT', 'es']) {
    t.equal((await app.inject({ method: 'GET', url: '/probe/context', headers: { 'accept-language': locale } })).json().locale, locale)
  }
  const bad = await app.inject({ method: 'GET', url: '/probe/context', headers: { 'accept-language': 'fr-FR' } })
  t.equal(bad.statusCode, 409)
  t.same(bad.json(), { code: 'locale_invalid', message: 'The locale is invalid', details: { context: 'headers', property: 'accept-language' } })
})
