// OAuth clients: creation, secret verification, rotation and deletion, with the rows cached in
// memory so the Bearer guard and the token endpoint never wait on a hash or a query per request.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto'
import type { ClientRecord, Storage } from '../storage/index.js'
import type { Clock } from '../clock.js'
import { sha256 } from '../sha256.js'

// scrypt with N=2^14: slow enough to make a stolen database useless for guessing, and it runs in
// the libuv pool, never on the event loop. A verified secret is remembered as its SHA-256, so
// repeated token requests of one client cost a hash, not a key derivation; so is the secret a
// client is created or rotated with. Concurrent checks of one secret share one derivation: each
// takes 16 MiB for its moment, and glibc's allocator keeps that memory resident in every pool
// thread that ran one after the first (its threshold for mappings of their own moves up): a burst
// of first requests with the same credentials once cost 64 MiB of RSS (and a derivation each). The
// image fixes the threshold (MALLOC_MMAP_THRESHOLD_, docs/behaviour.md), so that derivations of
// different secrets give their memory back too.
export const SCRYPT = { N: 16384, r: 8, p: 1 }
const KEY_LENGTH = 32

/** Derives the stored key of a secret; injectable so tests can count derivations. */
export type DeriveKey = (secret: string, salt: string) => Promise<Buffer>

export const scryptKey: DeriveKey = (secret, salt) => new Promise((resolve, reject) => {
  scrypt(secret, Buffer.from(salt, 'base64'), KEY_LENGTH, SCRYPT, (err, key) => { err === null ? resolve(key) : reject(err) })
})

export async function hashSecret (secret: string, derive: DeriveKey = scryptKey): Promise<{ secretSalt: string, secretHash: string }> {
  const secretSalt = randomBytes(16).toString('base64')
  const key = await derive(secret, secretSalt)
  return { secretSalt, secretHash: key.toString('base64') }
}

export const generateSecret = (): string => randomBytes(24).toString('base64url')

export interface CreateClient {
  clientId: string
  clientSecret: string
  organizationId: string
  scopes: string[]
  refreshTokens: boolean
  userId?: string | null
  name?: string
  /** The secret's salt and key when already derived (the default demo secret's: demo-client.ts). */
  hashed?: { secretSalt: string, secretHash: string }
}

export class ClientRegistry {
  readonly #storage: Storage
  readonly #clock: Clock
  readonly #rows = new Map<string, ClientRecord | null>()
  /**
   * Counts `forget` calls: a row read before a write that changed it may come back after the
   * write was forgotten (reads and writes overlap on PostgreSQL), and is then not remembered.
   */
  #forgotten = 0
  readonly #verified = new Map<string, { generation: string, digest: Buffer }>()
  /** Derivations under way, by salt and the secret's SHA-256. */
  readonly #deriving = new Map<string, Promise<Buffer>>()
  readonly #derive: DeriveKey

  constructor (storage: Storage, clock: Clock, derive: DeriveKey = scryptKey) {
    this.#storage = storage
    this.#clock = clock
    this.#derive = derive
  }

  /** The client row, from memory after the first read; undefined when it does not exist. */
  async get (clientId: string): Promise<ClientRecord | undefined> {
    const cached = this.#rows.get(clientId)
    if (cached !== undefined) return cached ?? undefined
    const forgotten = this.#forgotten
    const row = await this.#storage.clients.get(clientId)
    if (forgotten !== this.#forgotten) return row
    if (this.#rows.size > 10_000) this.#rows.clear()
    this.#rows.set(clientId, row ?? null)
    return row
  }

  /** The client row when it is in memory (null: known not to exist); undefined when `get` must read. */
  cached (clientId: string): ClientRecord | null | undefined {
    return this.#rows.get(clientId)
  }

  /** Checks a presented secret in constant time; undefined for an unknown client or a wrong secret. */
  async authenticate (clientId: string, secret: string): Promise<ClientRecord | undefined> {
    const client = await this.get(clientId)
    const digest = sha256(secret)
    const known = this.#verified.get(clientId)
    if (client !== undefined && known !== undefined && known.generation === client.generation && timingSafeEqual(known.digest, digest)) {
      return client
    }
    // Unknown clients still pay for a derivation, so timing does not tell which ids exist.
    const key = await this.#deriveOnce(secret, client?.secretSalt ?? 'AAAAAAAAAAAAAAAAAAAAAA==', digest)
    if (client === undefined) return undefined
    const stored = Buffer.from(client.secretHash, 'base64')
    if (stored.length !== key.length || !timingSafeEqual(stored, key)) return undefined
    this.#verified.set(clientId, { generation: client.generation, digest })
    return client
  }

  /** One derivation for a secret and salt, shared by the checks that ask for it while it runs. */
  #deriveOnce (secret: string, salt: string, digest: Buffer): Promise<Buffer> {
    const key = `${salt}:${digest.toString('base64')}`
    let running = this.#deriving.get(key)
    if (running === undefined) {
      running = this.#derive(secret, salt).finally(() => this.#deriving.delete(key))
      this.#deriving.set(key, running)
    }
    return running
  }

  /** The row just written, and its secret as verified: the next check needs no derivation. */
  #remember (row: ClientRecord | undefined, secret: string): void {
    if (row === undefined) return
    this.#rows.set(row.id, row)
    this.#verified.set(row.id, { generation: row.generation, digest: sha256(secret) })
  }

  /** The client made; undefined when a client with this id exists. */
  async create (input: CreateClient): Promise<ClientRecord | undefined> {
    const hashed = input.hashed ?? await hashSecret(input.clientSecret, this.#derive)
    const row = await this.#storage.clients.create({
      id: input.clientId,
      organizationId: input.organizationId,
      name: input.name,
      scopes: input.scopes,
      refreshTokens: input.refreshTokens,
      userId: input.userId ?? null,
      ...hashed
    }, this.#clock.iso())
    this.forget(input.clientId)
    if (row !== undefined) this.#remember(row, input.clientSecret)
    return row
  }

  /** New secret, new generation: every token issued before is revoked. */
  async rotateSecret (clientId: string, secret: string): Promise<ClientRecord | undefined> {
    const hashed = await hashSecret(secret, this.#derive)
    const row = await this.#storage.clients.rotateSecret(clientId, hashed.secretSalt, hashed.secretHash)
    this.forget(clientId)
    this.#remember(row, secret)
    return row
  }

  async delete (clientId: string): Promise<boolean> {
    const deleted = await this.#storage.clients.delete(clientId)
    this.forget(clientId)
    return deleted
  }

  /** Drops what is cached of one client, or of all (after a reset or a fixture load). */
  forget (clientId?: string): void {
    this.#forgotten++
    if (clientId === undefined) {
      this.#rows.clear()
      this.#verified.clear()
    } else {
      this.#rows.delete(clientId)
      this.#verified.delete(clientId)
    }
  }
}
