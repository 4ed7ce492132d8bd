import t from 'tap'
import { validateAddress } from '../../src/catalogue/addresses.js'
import { NETWORKS } from '../../src/catalogue/data.js'

const network = (code: string) => NETWORKS.find(n => n.code === code)!

t.test('each crypto network\'s example address is valid; garbage is not', async t => {
  for (const n of NETWORKS.filter(n => n.type === 'crypto')) {
    t.ok(n.exampleAddress, `${n.code} has an example`)
    const reference = n.reference === undefined ? undefined : '123'
    t.same(validateAddress(n, n.exampleAddress!, reference), { isValid: true }, n.code)
    t.same(validateAddress(n, 'not-an-address'), { isValid: false, error: { code: 'address_invalid', message: 'The address is invalid' } }, `${n.code} garbage`)
  }
})

t.test('main and test network addresses of BTC, ETH (and its ERC-20 tokens), SOL, XRP, LTC, DOGE', async t => {
  const valid: Array<[string, string]> = [
    ['bitcoin', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'],
    ['bitcoin', '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2'],
    ['bitcoin', 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx'],
    ['ethereum', '0x742d35cc6634c0532925a3b844bc454e4438f44e'],
    ['ethereum', '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238'],
    ['solana', '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU'],
    ['litecoin', 'LVg2kJoFNg45Nbpy53h7Fe1wKyeXVRhMH9'],
    ['dogecoin', 'DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L']
  ]
  for (const [n, a] of valid) t.ok(validateAddress(network(n), a).isValid, `${n} ${a}`)
  const invalid: Array<[string, string]> = [
    ['bitcoin', '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3'],
    ['ethereum', '0x742d35Cc6634C0532925a3b844Bc454e4438f44E'],
    ['ethereum', '0x742d35'],
    ['solana', 'xyz'],
    ['xrp-ledger', '0x742d35cc6634c0532925a3b844bc454e4438f44e'],
    ['dogecoin', 'LVg2kJoFNg45Nbpy53h7Fe1wKyeXVRhMH9']
  ]
  for (const [n, a] of invalid) t.notOk(validateAddress(network(n), a).isValid, `${n} ${a}`)
})

t.test('references: XRP destination tags, Stellar memos, and networks that take none', async t => {
  const xrp = network('xrp-ledger')
  const address = 'rPT1Sjq2YGrBMTttX4GZHjKu9dyfzbpAYe'
  t.same(validateAddress(xrp, address, '12345'), { isValid: true })
  t.same(validateAddress(xrp, address), { isValid: true }, 'a private address needs no tag')
  t.same(validateAddress(xrp, address, '4294967296'), {
    isValid: false,
    error: { code: 'reference_invalid', message: 'XRP destination tag must be an integer between 0 and 4294967295', details: { rule: 'range', min: 0, max: 4294967295 } }
  })
  t.equal(validateAddress(xrp, address, 'abc').error?.code, 'reference_invalid')
  t.same(validateAddress(xrp, xrp.exampleAddress!), {
    isValid: false, error: { code: 'reference_missing', message: 'A reference is required for this address', details: { rule: 'required' } }
  }, 'the shared exchange address needs a tag')
  const xlm = network('stellar')
  t.same(validateAddress(xlm, xlm.exampleAddress!, 'x'.repeat(29)).error, {
    code: 'reference_invalid', message: 'Stellar memo must be 28 bytes long', details: { rule: 'byteLength', expected: 28, actual: 29 }
  })
  t.ok(validateAddress(xlm, xlm.exampleAddress!, 'x'.repeat(28)).isValid)
  t.equal(validateAddress(network('bitcoin'), network('bitcoin').exampleAddress!, '1').error?.code, 'reference_invalid')
})

t.test('a network the validator does not know accepts any address', async t => {
  t.same(validateAddress({ code: 'my-chain', name: 'Mine', type: 'crypto' }, 'anything'), { isValid: true })
})
