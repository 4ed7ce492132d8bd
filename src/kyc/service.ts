// The KYC area's service: the checks that need other reads (files from the files area; countries
// and subdivisions through the shared rules of users/rules.ts), then the state machine's change in one write; and the
// scheduler that completes the service's reviews when their time comes on the sandbox clock.
import type { FastifyInstance } from 'fastify'
import { allTogether, followDueWork, type DueScope } from '../kit/due-work.js'
import { conflict, entityNotFound } from '../errors.js'
import { filesStore } from '../files/store.js'
import type { KybStatus } from './store.js'
import { kycStore, type KycStore } from './store.js'
import { PROCESS_CODES, type ManualProcess, type ProcessCode, type ProcessStatus, type ProcessView } from '../../schemas/kyc.js'
import { overview, summary, view, type Json, type Snapshot } from './model.js'
import { Change, completeReview, force, type Lookups, type Warnings } from './machine.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The KYC area's service, within the KYC area's plugin. */
    kyc: KycService
  }
}

export interface Updated { view: ProcessView, warnings: Warnings }

export class KycService {
  readonly #app: FastifyInstance
  readonly store: KycStore

  constructor (app: FastifyInstance) {
    this.#app = app
    this.store = app.storage.store(kycStore)
  }

  get #delayMs (): number { return this.#app.config.kycReviewDelaySeconds * 1000 }

  async #snapshot (organizationId: string, userId: string): Promise<Snapshot> {
    const snapshot = await this.store.read(organizationId, userId)
    if (snapshot === undefined) throw entityNotFound('user')
    return snapshot
  }

  async overview (organizationId: string, userId: string, detailed: string[] = []): Promise<ReturnType<typeof overview>> {
    return overview(await this.#snapshot(organizationId, userId), new Set(detailed))
  }

  /** Runs one change of a user's processes in one write; 404 when the user is gone. */
  async #change<T> (organizationId: string, userId: string, work: (c: Change, lookups: Lookups) => T | Promise<T>): Promise<T> {
    const now = this.#app.clock.now()
    const result = await this.store.change(organizationId, userId, async (snapshot, lookups) => {
      const change = new Change(snapshot, now, this.#delayMs)
      return { change, result: await work(change, lookups) }
    }, (type, data) => this.#app.events.build(organizationId, type, data))
    if (result === undefined) throw entityNotFound('user')
    if (this.#delayMs === 0) this.completeDueReviews(this.#app.clock.positionOf(organizationId) === undefined ? null : organizationId).catch(() => {})
    return result
  }

  /** An update of a process by the integrator; `apply` is the state machine's step. */
  async update (organizationId: string, userId: string, code: ManualProcess, apply: (c: Change, lookups: Lookups) => void | Promise<void>): Promise<Updated> {
    return await this.#change(organizationId, userId, async (c, lookups) => {
      await apply(c, lookups)
      return { view: view(code, c.snapshot(), true), warnings: c.warnings }
    })
  }

  /** Forces a process's outcome (control API); 404 when the user does not exist. */
  async force (userId: string, code: ProcessCode, status: ProcessStatus, reason?: string): Promise<{ process: ProcessView, summary: ReturnType<typeof summary> }> {
    const organizationId = await this.#organizationOf(userId)
    return await this.#change(organizationId, userId, c => {
      force(c, code, status, reason)
      const snapshot = c.snapshot()
      return { process: view(code, snapshot, true), summary: summary(snapshot.processes) }
    })
  }

  /**
   * Forces every process's outcome in one write (control API), in process order, so screening and
   * risk, which others start, end as forced too; 404 when the user does not exist.
   */
  async forceAll (userId: string, status: ProcessStatus, reason?: string): Promise<ReturnType<typeof overview>> {
    const organizationId = await this.#organizationOf(userId)
    return await this.#change(organizationId, userId, c => {
      for (const code of PROCESS_CODES) force(c, code, status, reason)
      return overview(c.snapshot(), new Set())
    })
  }

  async kyb (userId: string, status: KybStatus['status']): Promise<KybStatus> {
    const organizationId = await this.#organizationOf(userId)
    const event = this.#app.events.build(organizationId, 'core.kyb.onboarding.status-changed', { status, userId })
    const done = await this.store.setKyb(organizationId, userId, status, this.#app.clock.iso(), event)
    if (done === undefined) throw entityNotFound('user')
    return done
  }

  async #organizationOf (userId: string): Promise<string> {
    const organizationId = await this.#app.storage.admin.userOrganization(userId)
    if (organizationId === undefined) throw entityNotFound('user')
    return organizationId
  }

  /** Completes every review of the pass's organizations whose time has come on their clock, each in its own write. */
  async completeDueReviews (scope: DueScope): Promise<void> {
    for (;;) {
      const now = this.#app.clock.now()
      const due = await this.store.due(now, 100, scope)
      // Each review reads the user's processes inside its own write, after the writes before it.
      await allTogether(due, async review => await this.store.change(review.organizationId, review.userId, async (snapshot) => {
        const change = new Change(snapshot, now, this.#delayMs)
        const state = change.processes[review.process]
        // A review whose state no longer holds it (forced since) is dropped with the row.
        if (state.reviewDueAt === undefined) change.changed.add(review.process)
        else if (state.reviewDueAt <= now) completeReview(change, review.process)
        return { change, result: undefined }
      }, (type, data) => this.#app.events.build(review.organizationId, type, data)))
      if (due.length < 100) return
    }
  }

  // ---- Checks that read the files and the user (the catalogue's are the shared rules of users/rules.ts) ----

  /** Each file of `media` exists, is the user's, and was uploaded. */
  async files (organizationId: string, userId: string, media: Array<{ fileId: string }>): Promise<void> {
    const files = this.#app.storage.store(filesStore)
    for (const { fileId } of media) {
      const file = await files.get(organizationId, fileId)
      if (file === undefined || file.userId !== userId) throw entityNotFound('file', 'A file specified in the media array cannot be found')
      if (file.status !== 'uploaded') throw conflict('file_invalid', 'A file specified in the media array has not been uploaded')
    }
  }

  /** The user's residence country. */
  async userCountry (organizationId: string, userId: string): Promise<string> {
    const snapshot = await this.#snapshot(organizationId, userId)
    return String((snapshot.user.record.address as Json | undefined)?.country ?? '')
  }

  /** Starts completing due reviews: now, every second, and whenever a clock moves. */
  start (): () => Promise<void> {
    return followDueWork(this.#app, 'completing KYC reviews', async through => await this.store.earliestDue(through), async scope => { await this.completeDueReviews(scope) })
  }
}
