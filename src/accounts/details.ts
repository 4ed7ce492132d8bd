// Deposit details, made up for one account: a crypto address valid on its network, or bank details
// valid for their rail (a UK sort code and account number, an IBAN with its check digits, a US
// routing and account number). Each is derived from a seed (the account id and an attempt number)
// so it is unique in practice; the store refuses a clash and the caller tries the next attempt.
import { createHash } from 'node:crypto'
import { composeIBAN } from 'ibantools'

const BITCOIN_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
const RIPPLE_ALPHABET = 'rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz'
const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'

const sha256 = (data: Buffer | string): Buffer => createHash('sha256').update(data).digest()

/** Bytes derived from the seed: as many as asked, stable for the same seed. */
export function seedBytes (seed: string, length: number): Buffer {
  const out: Buffer[] = []
  for (let i = 0; out.length * 32 < length; i++) out.push(sha256(`${seed}:${i}`))
  return Buffer.concat(out).subarray(0, length)
}

function base58 (bytes: Buffer, alphabet: string): string {
  let n = BigInt('0x' + (bytes.length === 0 ? '0' : bytes.toString('hex')))
  let out = ''
  while (n > 0n) {
    out = alphabet[Number(n % 58n)] + out
    n /= 58n
  }
  for (const b of bytes) {
    if (b !== 0) break
    out = alphabet[0] + out
  }
  return out
}

const base58check = (version: number, payload: Buffer, alphabet = BITCOIN_ALPHABET): string => {
  const body = Buffer.concat([Buffer.from([version]), payload])
  return base58(Buffer.concat([body, sha256(sha256(body)).subarray(0, 4)]), alphabet)
}

function base32 (bytes: Buffer): string {
  let bits = 0
  let value = 0
  let out = ''
  for (const b of bytes) {
    value = (value << 8) | b
    bits += 8
    while (bits >= 5) {
      out += BASE32_ALPHABET[(value >>> (bits - 5)) & 31]
      bits -= 5
    }
  }
  if (bits > 0) out += BASE32_ALPHABET[(value << (5 - bits)) & 31]
  return out
}

function crc16xmodem (bytes: Buffer): number {
  let crc = 0
  for (const b of bytes) {
    crc ^= b << 8
    for (let i = 0; i < 8; i++) crc = (crc & 0x8000) !== 0 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff
  }
  return crc
}

/** A Stellar account id (G...): version byte, 32 key bytes and a CRC16 checksum, in base32. */
function stellar (key: Buffer): string {
  const body = Buffer.concat([Buffer.from([6 << 3]), key])
  const crc = crc16xmodem(body)
  return base32(Buffer.concat([body, Buffer.from([crc & 0xff, crc >> 8])]))
}

export type AddressFormat = 'native-segwit' | 'wrapped-segwit' | 'pubkey-hash'

export interface CryptoAddress {
  address: string
  formats: Array<{ format: AddressFormat, value: string }>
  /** Destination tag or memo, on networks that have one. */
  reference?: string
}

/** Base58check versions of pay-to-pubkey-hash addresses: Bitcoin's test network, Litecoin and Dogecoin. */
const PUBKEY_HASH: Record<string, number> = { bitcoin: 0x6f, litecoin: 0x30, dogecoin: 0x1e }
/** And of pay-to-script-hash (the wrapped form) where we offer it. */
const SCRIPT_HASH: Record<string, number> = { bitcoin: 0xc4 }

/** A deposit address on a crypto network, derived from the seed; undefined for a network we cannot make addresses for. */
export function cryptoAddress (network: string, seed: string): CryptoAddress | undefined {
  const hash = seedBytes(seed, 32)
  const reference = String(seedBytes(`${seed}:reference`, 4).readUInt32BE(0) % 1_000_000_000)
  if (PUBKEY_HASH[network] !== undefined) {
    const address = base58check(PUBKEY_HASH[network], hash.subarray(0, 20))
    const formats: CryptoAddress['formats'] = [{ format: 'pubkey-hash', value: address }]
    if (SCRIPT_HASH[network] !== undefined) formats.push({ format: 'wrapped-segwit', value: base58check(SCRIPT_HASH[network], hash.subarray(12, 32)) })
    return { address, formats }
  }
  switch (network) {
    case 'ethereum': {
      const address = '0x' + hash.subarray(0, 20).toString('hex')
      return { address, formats: [{ format: 'pubkey-hash', value: address }] }
    }
    case 'solana': {
      const address = base58(hash, BITCOIN_ALPHABET)
      return { address, formats: [{ format: 'pubkey-hash', value: address }] }
    }
    case 'xrp-ledger': {
      const address = base58check(0, hash.subarray(0, 20), RIPPLE_ALPHABET)
      return { address, formats: [{ format: 'pubkey-hash', value: address }], reference }
    }
    case 'stellar': {
      const address = stellar(hash)
      return { address, formats: [{ format: 'pubkey-hash', value: address }], reference }
    }
    default: return undefined
  }
}

const digits = (seed: string, count: number): string => {
  const n = BigInt('0x' + seedBytes(seed, 16).toString('hex'))
  return (n % (10n ** BigInt(count))).toString().padStart(count, '0')
}

/** The sandbox bank that holds every account's bank details. */
export const SANDBOX_BANK = {
  beneficiary: 'Sandbox Payments Ltd',
  gb: { bankName: 'Sandbox Bank UK', bankAddress: { line1: '1 Sandbox Street', line2: 'London, United Kingdom' }, sortCode: '040004' },
  eu: { bankName: 'Sandbox Bank Europe', bankAddress: { line1: 'Sandbox g. 1', line2: 'Vilnius, Lithuania' }, bic: 'SBXELT21', bankCode: '30000' },
  us: { bankName: 'Sandbox Bank US', bankAddress: { line1: '1 Sandbox Avenue', line2: 'New York, NY 10001' }, routingNumber: '021214891' }
} as const

/** A UK account number (8 digits) under the sandbox sort code. */
export const fpsAccountNumber = (seed: string): string => digits(`${seed}:fps`, 8)

/** A Lithuanian IBAN (bank code, then an 11-digit account number) with its check digits. */
export function sepaIban (seed: string): string {
  const iban = composeIBAN({ countryCode: 'LT', bban: SANDBOX_BANK.eu.bankCode + digits(`${seed}:sepa`, 11) })
  if (iban === null) throw new Error('could not compose an IBAN')
  return iban
}

/** A US account number (12 digits, not starting with 0). */
export const usAccountNumber = (seed: string): string => String(1 + Number(digits(`${seed}:us`, 1)) % 9) + digits(`${seed}:us`, 11)

/** A payment reference: the sandbox's two letters and eight characters of the seed. */
export const paymentReference = (seed: string): string => 'SB' + seedBytes(`${seed}:ref`, 5).toString('hex').toUpperCase().slice(0, 8)
