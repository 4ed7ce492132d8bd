// Access tokens (JWT, HS256, key kept in the database so tokens survive a restart) and opaque
// refresh tokens (stored as SHA-256, rotated on use).
import { createHmac, createSecretKey, randomFillSync, randomUUID, type KeyObject } from 'node:crypto'
import { createVerifier } from 'fast-jwt'
import type { Clock } from '../clock.js'
import type { ClientRecord, RefreshTokenRecord, Storage } from '../storage/index.js'
import type { ClientRegistry } from './clients.js'
import { tokenExpired, tokenInvalid, tokenRevoked } from '../errors.js'
import { sha256Hex } from '../sha256.js'

export interface AccessClaims {
  iss: string
  sub: string
  /** client id */
  cid: string
  /** organization id */
  org: string
  /** subject type */
  sty: 'client' | 'user'
  scope: string
  /** the client's generation at issue; a rotated or re-created client revokes older tokens */
  gen: string
  jti: string
  iat: number
  exp: number
}

export interface IssuedToken {
  access_token: string
  token_type: 'Bearer'
  expires_in: number
  scope: string
  refresh_token?: string
}

export interface VerifiedToken {
  claims: AccessClaims
  client: ClientRecord
  scopes: string[]
}

/**
 * The key a refresh token is stored under: the time it was issued (its first 6 bytes, as 12 hex
 * digits) then 52 hex digits of its SHA-256. Keys of new tokens are appended to the table's index,
 * so a commit writes a page or two for all the tokens it stores instead of one page per token; and
 * a key tells nothing of its token but when it was issued.
 */
export function hashRefreshToken (token: string): string {
  const digest = sha256Hex(token)
  const issued = Buffer.from(token.slice(0, 8), 'base64url').toString('hex')
  return issued.length === 12 ? issued + digest.slice(0, 52) : digest
}

// Refresh tokens issued before keys began with the issue time are stored under their whole SHA-256.
const legacyRefreshTokenKey = (token: string): string => sha256Hex(token)

// Random bytes from a pool refilled 4 KiB at a time: one call into the system's generator per 128
// refresh tokens rather than one each (randomUUID pools the same way). No byte is handed out twice.
const pool = Buffer.alloc(4096)
let pooled = 0
function randomBytesFromPool (size: number): Buffer {
  if (pooled < size) {
    randomFillSync(pool)
    pooled = pool.length
  }
  pooled -= size
  return Buffer.from(pool.subarray(pooled, pooled + size))
}

/** A version 7 UUID (RFC 9562): random, but ordered by creation time. */
function uuidv7 (): string {
  const b = randomBytesFromPool(16)
  b.writeUIntBE(Date.now(), 0, 6)
  b[6] = (b[6] & 0x0f) | 0x70
  b[8] = (b[8] & 0x3f) | 0x80
  const hex = b.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

// A refresh token family starts with the client's generation: a client whose secret was rotated,
// or that was deleted and created again under the same id, cannot refresh its former self's tokens.
// Families are time-ordered, so each new one lands at the end of the family index instead of on a
// random page of it: a page less for every commit to write.
// Access tokens are signed here, by hand, and verified by fast-jwt. HS256 signing is two base64url
// encodings and one HMAC (RFC 7515, section 5.1; RFC 7518, section 3.2), and fast-jwt's signer, which
// checks its options, copies the payload and encodes the header again for every token, took 15% of
// a token request under load. Every token the sandbox issues is checked by fast-jwt's verifier on
// its way back, and a test checks them with a separately configured verifier and a plain HMAC.
const JWT_HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url')

export function hs256Signer (key: KeyObject): (claims: AccessClaims) => string {
  return (claims) => {
    const input = `${JWT_HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`
    return `${input}.${createHmac('sha256', key).update(input).digest('base64url')}`
  }
}

/** Whether a grant is the client's whole list of scopes, in its order. */
const sameScopes = (scopes: string[], own: string[]): boolean =>
  scopes === own || (scopes.length === own.length && scopes.every((scope, i) => scope === own[i]))

const newFamily = (client: ClientRecord): string => `${client.generation}.${uuidv7()}`
export const isFamilyOf = (family: string, client: ClientRecord): boolean => family.startsWith(`${client.generation}.`)

export class TokenService {
  readonly #sign: (payload: AccessClaims) => string
  readonly #verify: (token: string) => AccessClaims
  readonly #clock: Clock
  readonly #storage: Storage
  readonly #clients: ClientRegistry
  readonly #issuer: string
  readonly #ttl: number
  readonly #refreshTtl: number
  // Tokens whose signature checked out (a client sends the same token many times), under their
  // signature: a short key to hash, while the whole token must still match. Cheaper than the
  // library's own cache, which hashes every token with SHA-256.
  readonly #verified = new Map<string, { token: string, claims: AccessClaims, scopes: string[] }>()

  constructor (opts: { key: string, clock: Clock, storage: Storage, clients: ClientRegistry, issuer: string, ttlSeconds: number, refreshTtlSeconds: number }) {
    const key = Buffer.from(opts.key, 'base64')
    // The claims carry their own iat and exp, read from the sandbox clock.
    this.#sign = hs256Signer(createSecretKey(key))
    // Expiry is checked against the sandbox clock below, so the library's own clock is turned off.
    this.#verify = createVerifier({ key, algorithms: ['HS256'], ignoreExpiration: true, ignoreNotBefore: true }) as (t: string) => AccessClaims
    this.#clock = opts.clock
    this.#storage = opts.storage
    this.#clients = opts.clients
    this.#issuer = opts.issuer
    this.#ttl = opts.ttlSeconds
    this.#refreshTtl = opts.refreshTtlSeconds
  }

  get ttlSeconds (): number { return this.#ttl }

  /**
   * Issues an access token (and a refresh token when the client has them) for a client.
   * `ttlSeconds` overrides the configured lifetime (a KYC sharing session's token lives 600 s).
   */
  async issue (client: ClientRecord, scopes: string[], family?: string, ttlSeconds = this.#ttl): Promise<IssuedToken> {
    // Issued on the client's organization's clock (each organization has its own).
    const now = this.#clock.of(client.organizationId).nowSeconds()
    const scope = scopes.join(' ')
    const claims: AccessClaims = {
      iss: this.#issuer,
      sub: client.userId ?? client.id,
      cid: client.id,
      org: client.organizationId,
      sty: client.userId === null ? 'client' : 'user',
      scope,
      gen: client.generation,
      jti: randomUUID(),
      iat: now,
      exp: now + ttlSeconds
    }
    const issued: IssuedToken = { access_token: this.#sign(claims), token_type: 'Bearer', expires_in: ttlSeconds, scope }
    if (client.refreshTokens && family === undefined) {
      const refresh = this.newRefreshToken(client, sameScopes(scopes, client.scopes) ? null : scopes, newFamily(client))
      await this.#storage.refreshTokens.save(refresh.record)
      issued.refresh_token = refresh.token
    }
    return issued
  }

  /** A new refresh token of `family`; `scopes` null: every scope of `client` (RefreshTokenRecord). */
  newRefreshToken (client: ClientRecord, scopes: string[] | null, family: string): { token: string, record: RefreshTokenRecord } {
    // 32 bytes, base64url: the issue time (6 bytes, so stored keys are ordered), then 26 random bytes.
    const bytes = randomBytesFromPool(32)
    bytes.writeUIntBE(Date.now(), 0, 6)
    const token = bytes.toString('base64url')
    const now = this.#clock.nowFor(client.organizationId)
    return {
      token,
      record: {
        hash: hashRefreshToken(token),
        clientId: client.id,
        organizationId: client.organizationId,
        userId: client.userId,
        scopes,
        expiresAt: now + this.#refreshTtl * 1000,
        createdAt: now,
        usedAt: null,
        family
      }
    }
  }

  /** The stored refresh token a client presents, with the key it is stored under. */
  async findRefreshToken (token: string): Promise<{ key: string, record: RefreshTokenRecord } | undefined> {
    for (const key of [hashRefreshToken(token), legacyRefreshTokenKey(token)]) {
      const record = await this.#storage.refreshTokens.get(key)
      if (record !== undefined) return { key, record }
    }
    return undefined
  }

  /** Verifies a Bearer token: signature, expiry (sandbox clock), and that its client still stands. */
  async verify (token: string): Promise<VerifiedToken> {
    const { claims, scopes } = this.#claims(token)
    return this.#standing(claims, scopes, await this.#clients.get(claims.cid))
  }

  /**
   * `verify` without a read: the verified token when its client is in memory, undefined when
   * `verify` has to read it. Refuses (throws) exactly as `verify` does.
   */
  verifyCached (token: string): VerifiedToken | undefined {
    const { claims, scopes } = this.#claims(token)
    const client = this.#clients.cached(claims.cid)
    return client === undefined ? undefined : this.#standing(claims, scopes, client ?? undefined)
  }

  /**
   * The client of a token whose signature checks out, expired or not; undefined otherwise. For
   * the request log of a request answered before the guard (a fault rule).
   */
  signedClient (token: string): string | undefined {
    try {
      const claims = this.#verify(token)
      return typeof claims.cid === 'string' ? claims.cid : undefined
    } catch {
      return undefined
    }
  }

  /** The token's claims once its signature checked out, and not expired by the sandbox clock. */
  #claims (token: string): { claims: AccessClaims, scopes: string[] } {
    const signature = token.slice(token.lastIndexOf('.') + 1)
    let known = this.#verified.get(signature)
    if (known === undefined || known.token !== token) {
      let claims: AccessClaims
      try {
        claims = this.#verify(token)
      } catch {
        throw tokenInvalid()
      }
      if (typeof claims.exp !== 'number' || typeof claims.cid !== 'string' || typeof claims.scope !== 'string') throw tokenInvalid()
      known = { token, claims, scopes: claims.scope === '' ? [] : claims.scope.split(' ') }
      if (this.#verified.size >= 10_000) this.#verified.clear()
      this.#verified.set(signature, known)
    }
    // Expired by its organization's clock.
    if (known.claims.exp <= Math.floor(this.#clock.nowFor(known.claims.org) / 1000)) throw tokenExpired()
    return known
  }

  /** Whether the token's client still stands as it was when the token was issued. */
  #standing (claims: AccessClaims, scopes: string[], client: ClientRecord | undefined): VerifiedToken {
    if (client === undefined || client.generation !== claims.gen || client.organizationId !== claims.org) throw tokenRevoked()
    return { claims, client, scopes }
  }
}
