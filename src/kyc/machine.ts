// The KYC state machine: what each update, each completed review and each forced outcome does to a
// user's processes. It runs inside the write that stores the result (on the state read in that
// write; its only reads, the lookups, run there too), so two updates of one user never interleave. It checks only what needs the
// stored state; what needs other reads (countries, files) was checked before (service.ts).
import { ApiError, conflict, entityNotFound, requestInvalid } from '../errors.js'
import { operationNotAllowed } from '../http/user-context.js'
import { checkAddressLines, checkAge, checkEmail, checkName, checkPhone, emailAlreadyExists, phoneAlreadyExists } from '../users/rules.js'
import type {
  AddressUpdate, EmailUpdate, EnhancedDueDiligenceUpdate, FormUpdate, IdentityUpdate, ManualProcess, PhoneUpdate,
  ProcessCode, ProcessStatus, ProfileUpdate, ProofOfAddressUpdate, TaxDetailsUpdate
} from '../../schemas/kyc.js'
import { TAX_DOCUMENT_REASONS, TAX_FORM, check, stepSchema } from './forms.js'
import {
  FORMS, MAX_ATTEMPTS, addressOf, hasBirthdate, hasName, isAddressComplete, isProfileComplete, isSubmittable, modelOf, profileRules,
  type Json, type ProcessState, type Snapshot
} from './model.js'

export interface Lookups {
  /** Whether another user of the organization has this e-mail address (case-insensitive). */
  emailTaken: (email: string) => Promise<boolean>
  /** Whether another user of the organization has this verified or declared phone number. */
  phoneTaken: (phone: string) => Promise<boolean>
}

export type Warnings = Record<string, Array<{ code: string, message: string, details: Json }>>

export interface KycEvent { type: string, data: Json }

const YEAR_MS = 365 * 24 * 3600 * 1000

/** The changes one write makes: the working state, the processes it changed, the events, the user record. */
export class Change {
  readonly processes: Record<ProcessCode, ProcessState>
  readonly changed = new Set<ProcessCode>()
  readonly events: KycEvent[] = []
  readonly warnings: Warnings = {}
  record: Json
  userChanged = false
  readonly #snapshot: Snapshot

  constructor (snapshot: Snapshot, readonly now: number, readonly delayMs: number) {
    this.#snapshot = snapshot
    this.processes = { ...snapshot.processes }
    this.record = { ...snapshot.user.record }
  }

  get iso (): string { return new Date(this.now).toISOString() }
  get userId (): string { return this.#snapshot.user.id }
  get config (): Snapshot['config'] { return this.#snapshot.config }

  /** The state as it stands after the changes so far. */
  snapshot (): Snapshot {
    return { ...this.#snapshot, user: { ...this.#snapshot.user, email: String(this.record.email), record: this.record }, processes: this.processes }
  }

  model (code: ProcessCode): string { return modelOf(this.config, code) }

  /** Sets a process's state; a new status records its event, then what follows from it. */
  set (code: ProcessCode, next: ProcessState): void {
    const previous = this.processes[code]
    this.processes[code] = next
    this.changed.add(code)
    if (previous.status === next.status) return
    this.events.push({ type: `core.kyc.${code}.status-changed`, data: { status: next.status, userId: this.userId } })
    this.#follow(code, next)
  }

  /** The state with the service's review scheduled. */
  underReview (state: ProcessState): ProcessState {
    return { ...state, reviewDueAt: this.now + this.delayMs }
  }

  user (patch: Json): void {
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined) delete this.record[k]
      else this.record[k] = v
    }
    this.record.updatedAt = this.iso
    this.userChanged = true
  }

  warn (part: string, property: string, rule: string, message: string): void {
    (this.warnings[part] ??= []).push({ code: 'verification_rule_violated', message, details: { property, rule } })
  }

  /** What a status change sets off: screening, proof of address from identity, due diligence that follows. */
  #follow (code: ProcessCode, next: ProcessState): void {
    if (next.status !== 'ok') return
    if (code === 'profile' || code === 'identity') {
      const screening = this.processes.screening
      if (screening.status !== 'exempt') this.set('screening', this.underReview({ status: 'running' }))
    }
    if (code === 'identity') {
      const address = (next.output?.person as Json | undefined)?.address as Json | undefined
      const poa = this.processes['proof-of-address']
      if (address !== undefined && poa.type === 'none' && isSubmittable(poa) && poa.status === 'pending') {
        const person = next.output!.person as Json
        this.set('proof-of-address', {
          status: 'ok',
          type: 'from-identity',
          output: { provider: next.output!.provider, person: defined({ givenName: person.givenName, familyName: person.familyName, address }), verifiedAt: this.iso }
        })
      }
    }
    if (code === 'customer-due-diligence') {
      const edd = this.processes['enhanced-due-diligence']
      if (next.output?.score === 'high' && edd.status === 'exempt' && !(this.config.exempt as string[]).includes('enhanced-due-diligence')) {
        this.set('enhanced-due-diligence', { status: 'pending' })
      }
      const risk = this.processes.risk
      if (risk.status !== 'exempt') this.set('risk', this.underReview({ status: 'running' }))
    }
  }
}

const defined = (value: Json): Json => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined))

// ---- Errors in the reference's words ----

const updateNotAllowed = (): ApiError =>
  operationNotAllowed(['kyc-process-update-not-allowed'], 'The current status of the process does not allow updates')
const formAlreadyCompleted = (): ApiError => operationNotAllowed(['form-already-completed'], 'The form has already been completed')
const formNotFound = (): ApiError => entityNotFound('form', 'The form cannot be found or has already been completed')

export const datePast = (property: string): ApiError => conflict('date_invalid', 'The date must be in the past', {
  rule: 'difference-greater-than-threshold', threshold: { limit: 0, unit: 'milliseconds' }, context: 'body', property
})
export const dateFuture = (property: string): ApiError => conflict('date_invalid', 'The date must be in the future', {
  rule: 'difference-less-than-threshold', threshold: { limit: 0, unit: 'milliseconds' }, context: 'body', property
})
export const checkPast = (value: string | undefined, now: number, property: string): void => {
  if (value !== undefined && !(Date.parse(value) < now)) throw datePast(property)
}
export const checkFuture = (value: string | undefined, now: number, property: string): void => {
  if (value !== undefined && !(Date.parse(value) > now)) throw dateFuture(property)
}

/** The partner's `output` sent for a process the service verifies: ignored, with a warning. */
function ignoreOutput (c: Change, code: ProcessCode, output: unknown): boolean {
  if (output === undefined || c.model(code) !== 'uphold-verified') return false
  c.warn('output', 'output', 'model', `Field 'output' was ignored as '${code}' is uphold-verified`)
  return true
}

/** The status of a submission: ok with the partner's output, under review by the service, or waiting for the output. */
function submitted (c: Change, code: ProcessCode, state: ProcessState, output: Json | undefined): ProcessState {
  const model = c.model(code)
  if (model === 'uphold-verified') return c.underReview({ ...state, status: 'pending', output: undefined })
  if (model === 'none') return { ...state, status: 'ok' }
  return output === undefined ? { ...state, status: 'pending', output: undefined } : { ...state, status: 'ok', output }
}

const clean = (s: ProcessState): ProcessState => {
  const out: ProcessState = { status: s.status }
  for (const k of ['type', 'input', 'output', 'attempts', 'reason', 'reviewDueAt'] as const) if (s[k] !== undefined) (out as unknown as Json)[k] = s[k]
  return out
}

// ---- Profile and address ----

/** The user's country of residence (an address update does not change it). */
const countryOf = (c: Change): string | undefined => {
  const country = addressOf(c.record).country
  return typeof country === 'string' ? country : undefined
}

const addressPatch = (current: Json, input: Json): Json => {
  const next = { ...current }
  for (const [k, v] of Object.entries(input)) {
    if (v === null) delete next[k]
    else next[k] = v
  }
  return next
}

/** Profile and address statuses after the user's declared data changed. */
function declared (c: Change, only?: 'address'): void {
  for (const code of only === undefined ? ['profile', 'address'] as const : ['address'] as const) {
    const state = c.processes[code]
    if (state.status === 'exempt') continue
    const complete = code === 'profile' ? isProfileComplete(c.record) : isAddressComplete(c.record)
    if (!complete) { c.set(code, clean({ ...state, status: 'pending', reviewDueAt: undefined })); continue }
    c.set(code, clean(c.model(code) === 'uphold-verified' ? c.underReview({ ...state, status: 'pending' }) : { ...state, status: 'ok', reviewDueAt: undefined }))
  }
}

export function updateProfile (c: Change, { input }: ProfileUpdate): void {
  const rules = profileRules(c.snapshot())
  const kept: Json = {}
  for (const [field, value] of Object.entries(input)) {
    const rule = (rules as Record<string, { presence: string, editable: boolean } | undefined>)[field]
    if (rule === undefined || rule.presence === 'disallowed') {
      c.warn('input', `input.${field}`, 'presence', `Field 'input.${field}' was ignored as its presence is disallowed`)
      continue
    }
    if (!rule.editable && c.record[field] !== undefined && c.record[field] !== value) {
      c.warn('input', `input.${field}`, 'editable', `Field 'input.${field}' was ignored as it is not editable`)
      continue
    }
    kept[field] = value
  }
  const address = kept.address as Json | undefined
  if (address !== undefined) {
    const current = addressOf(c.record)
    if (address.subdivision !== undefined && current.subdivision !== undefined && address.subdivision !== current.subdivision) {
      c.warn('input', 'input.address.subdivision', 'editable', 'Field \'input.address.subdivision\' was ignored as it is not editable')
      const { subdivision: _ignored, ...rest } = address
      kept.address = rest
    }
  }
  checkName(kept.fullName as string | undefined, 'input.fullName')
  checkAge(kept.birthdate as string | undefined, c.now, 'input.birthdate')
  checkAddressLines(kept.address as Json | undefined, 'input.address', countryOf(c))
  c.user({
    ...(kept.fullName === undefined ? {} : { fullName: kept.fullName }),
    ...(kept.birthdate === undefined ? {} : { birthdate: kept.birthdate }),
    ...(kept.primaryCitizenship === undefined ? {} : { primaryCitizenship: kept.primaryCitizenship }),
    ...(kept.address === undefined ? {} : { address: addressPatch(addressOf(c.record), kept.address as Json) })
  })
  declared(c)
}

export function updateAddress (c: Change, { input }: AddressUpdate): void {
  const current = addressOf(c.record)
  const subdivision = input.address.subdivision
  if (subdivision !== undefined && current.subdivision !== undefined && subdivision !== current.subdivision) {
    if (current.country === 'US') {
      throw operationNotAllowed(['subdivision-update-restricted-by-residence-country'], 'Subdivision update is restricted by residence country')
    }
    const poa = c.processes['proof-of-address']
    if (!(poa.status === 'ok' && c.model('proof-of-address') === 'partner-verified')) {
      throw operationNotAllowed(['subdivision-update-non-authoritative-proof-of-address'], 'Partner-verified \'proof-of-address\' is required to update subdivision')
    }
  }
  checkAddressLines(input.address, 'input.address', countryOf(c))
  c.user({ address: addressPatch(current, input.address as Json) })
  declared(c)
}

// ---- Email and phone ----

export async function updateEmail (c: Change, { input, output }: EmailUpdate, lookups: Lookups): Promise<void> {
  const state = c.processes.email
  if (state.status === 'ok') throw operationNotAllowed(['email-already-verified'], 'Email already verified')
  if (state.status === 'exempt') throw updateNotAllowed()
  checkEmail(input.email)
  if (await lookups.emailTaken(input.email)) throw emailAlreadyExists()
  const ignored = ignoreOutput(c, 'email', output)
  if (!ignored) checkPast(output?.verifiedAt, c.now, 'output.verifiedAt')
  c.user({ email: input.email })
  c.set('email', clean(submitted(c, 'email', { ...state, input: { email: input.email }, reviewDueAt: undefined }, ignored ? undefined : output)))
}

export async function updatePhone (c: Change, { input, output }: PhoneUpdate, lookups: Lookups): Promise<void> {
  const state = c.processes.phone
  if (state.status === 'ok') throw operationNotAllowed(['phone-already-verified'], 'Phone already verified')
  if (state.status === 'exempt') throw updateNotAllowed()
  checkPhone(input.phone)
  if (await lookups.phoneTaken(input.phone)) throw phoneAlreadyExists()
  const ignored = ignoreOutput(c, 'phone', output)
  if (!ignored) checkPast(output?.verifiedAt, c.now, 'output.verifiedAt')
  c.user({ phone: { number: input.phone, country: input.country } })
  c.set('phone', clean(submitted(c, 'phone', { ...state, input: { phone: input.phone, country: input.country }, reviewDueAt: undefined }, ignored ? undefined : output)))
}

// ---- Identity, proof of address, enhanced due diligence ----

function documentUpdate (c: Change, code: 'identity' | 'proof-of-address', body: IdentityUpdate | ProofOfAddressUpdate): void {
  const state = c.processes[code]
  if (!isSubmittable(state)) throw updateNotAllowed()
  const allowed = code === 'identity' ? c.config.identityTypes : c.config.proofOfAddressTypes
  if (!allowed.includes(body.type)) {
    throw operationNotAllowed(['permission-denied'], `The submission type '${body.type}' is not allowed for your organization`)
  }
  if (body.output !== undefined && c.model(code) === 'uphold-verified') {
    throw operationNotAllowed(['permission-denied'], `Uphold-verified '${code}' updates are not allowed`)
  }
  const reasons: string[] = []
  if (!hasName(c.record)) reasons.push('missing-name')
  if (code === 'identity' && !hasBirthdate(c.record)) reasons.push('missing-birthdate')
  if (code === 'proof-of-address' && !isAddressComplete(c.record)) reasons.push('incomplete-address')
  if (reasons.length > 0) {
    throw operationNotAllowed(reasons, `User cannot submit ${code} due to incomplete declared information`)
  }
  const output = body.output as Json | undefined
  if (output !== undefined) {
    const person = output.person as Json | undefined
    checkName(person?.givenName as string | undefined, 'output.person.givenName')
    checkName(person?.familyName as string | undefined, 'output.person.familyName')
    checkAge(person?.birthdate as string | undefined, c.now, 'output.person.birthdate')
    checkFuture((output.document as Json | undefined)?.expiresAt as string | undefined, c.now, 'output.document.expiresAt')
    checkPast(output.verifiedAt as string, c.now, 'output.verifiedAt')
  }
  const data = (body.input as { data?: Json }).data
  if (data !== undefined) {
    checkName(data.givenName as string, 'input.data.givenName')
    checkName(data.familyName as string | undefined, 'input.data.familyName')
    checkAge(data.birthdate as string | undefined, c.now, 'input.data.birthdate')
  }
  const next: ProcessState = { status: state.status, type: body.type, input: body.input as Json }
  c.set(code, clean(submitted(c, code, next, output)))
}

export const updateIdentity = (c: Change, body: IdentityUpdate): void => { documentUpdate(c, 'identity', body) }
export const updateProofOfAddress = (c: Change, body: ProofOfAddressUpdate): void => { documentUpdate(c, 'proof-of-address', body) }

export function updateEnhancedDueDiligence (c: Change, { input, output }: EnhancedDueDiligenceUpdate): void {
  const state = c.processes['enhanced-due-diligence']
  if (!isSubmittable(state)) throw updateNotAllowed()
  const ignored = ignoreOutput(c, 'enhanced-due-diligence', output)
  if (!ignored) checkPast(output?.verifiedAt, c.now, 'output.verifiedAt')
  c.set('enhanced-due-diligence', clean(submitted(c, 'enhanced-due-diligence', { status: state.status, input: input as Json }, ignored ? undefined : output)))
}

// ---- Forms: customer due diligence, crypto risk assessment, self-categorization statement ----

export type FormProcess = 'customer-due-diligence' | 'crypto-risk-assessment' | 'self-categorization-statement'

export function updateForm (c: Change, code: FormProcess, { input, output }: FormUpdate): void {
  const form = FORMS[code]!
  const state = c.processes[code]
  if (state.status === 'exempt' || state.status === 'failed' || state.status === 'running') throw updateNotAllowed()
  if (state.status === 'ok') throw formAlreadyCompleted()
  if (input.formId !== undefined && input.formId !== form.id) throw formNotFound()
  const answered = (state.input?.answers ?? {}) as Json
  const completed = Object.keys(answered).length === form.steps.length
  const model = c.model(code)
  const out = output as Json | undefined
  const partnerOutput = out !== undefined && model === 'partner-verified'
  if (out !== undefined && !partnerOutput) ignoreOutput(c, code, out)

  if (partnerOutput) {
    // The partner evaluated the form itself: its answers are taken whole.
    checkFuture(out.expiresAt as string | undefined, c.now, 'output.expiresAt')
    checkPast(out.verifiedAt as string, c.now, 'output.verifiedAt')
    const rejected = out.result === 'rejected'
    const attempts = out.attempts as { used: number, maximum: number } | undefined
    const status: ProcessStatus = !rejected ? 'ok' : attempts !== undefined && attempts.used >= attempts.maximum ? 'failed' : 'pending'
    c.set(code, clean({ status, input: rejected ? undefined : { formId: form.id, answers: input.answers }, output: out, attempts: attempts?.used }))
    return
  }
  if (completed && state.reviewDueAt !== undefined) throw formAlreadyCompleted()

  const steps = Object.keys(input.answers)
  if (steps.length !== 1 || !form.steps.includes(steps[0])) {
    throw requestInvalid('body', [{ property: 'input.answers', rule: 'step', ruleParams: { steps: form.steps } }])
  }
  const name = steps[0]
  const index = form.steps.indexOf(name)
  const answeredSteps = form.steps.filter(s => answered[s] !== undefined).length
  if (index > answeredSteps) {
    throw requestInvalid('body', [{ property: `input.answers.${name}`, rule: 'step-order', ruleParams: { next: form.steps[answeredSteps] } }])
  }
  const violations = check(stepSchema(form, name), input.answers[name], `input.answers.${name}`)
  if (violations.length > 0) throw requestInvalid('body', violations)
  // Answering a step keeps the steps before it and drops those after: the form goes on from there.
  const answers: Json = {}
  for (const s of form.steps.slice(0, index)) answers[s] = answered[s]
  answers[name] = input.answers[name]
  const next: ProcessState = { ...state, status: 'pending', input: { formId: form.id, answers }, reviewDueAt: undefined }
  if (index + 1 < form.steps.length) { c.set(code, clean(next)); return }
  // The last step: evaluation starts.
  if (model === 'uphold-verified') c.set(code, clean(c.underReview(next)))
  else if (model === 'none') evaluateForm(c, code, next)
  else c.set(code, clean(next))
}

const cddScore = (answers: Json): 'low' | 'medium' | 'high' => {
  const finances = (answers.finances ?? {}) as Json
  if (finances['source-of-funds'] === 'other' || finances['annual-income'] === 'over-250000') return 'high'
  return finances['source-of-funds'] === 'business' ? 'medium' : 'low'
}

function approved (code: FormProcess, answers: Json): boolean {
  if (code === 'crypto-risk-assessment') {
    const first = ['me', 'all', 'sharply', 'no']
    return Object.values(answers).every(step => Object.values(step as Json).every(v => first.includes(String(v))))
  }
  const category = (answers.category ?? {}) as Json
  const declaration = (answers.declaration ?? {}) as Json
  return category.type !== 'none' && declaration.confirmed === true
}

/** The service's evaluation of a completed form. */
function evaluateForm (c: Change, code: FormProcess, state: ProcessState): void {
  const answers = (state.input?.answers ?? {}) as Json
  const verifiedAt = c.iso
  if (code === 'customer-due-diligence') {
    c.set(code, clean({ ...state, status: 'ok', reviewDueAt: undefined, output: { score: cddScore(answers), expiresAt: new Date(c.now + YEAR_MS).toISOString(), verifiedAt } }))
    return
  }
  const maximum = MAX_ATTEMPTS[code]!
  const used = (state.attempts ?? 0) + 1
  if (approved(code, answers)) {
    const expiresAt = code === 'self-categorization-statement' ? { expiresAt: new Date(c.now + YEAR_MS).toISOString() } : {}
    c.set(code, clean({ ...state, status: 'ok', reviewDueAt: undefined, attempts: used, output: { result: 'approved', attempts: { used, maximum }, ...expiresAt, verifiedAt } }))
    return
  }
  // A rejection leaves the process pending, the form to fill in again, until the attempts run out.
  const output = { result: 'rejected', attempts: { used, maximum } }
  c.set(code, clean({ status: used >= maximum ? 'failed' : 'pending', attempts: used, output }))
}

// ---- Tax details ----

const TAX_NUMBER = /^[A-Za-z0-9-]{4,20}$/

/**
 * 400 `request_invalid` for parts of the tax form that do not fit its schema. The form's parts may
 * come one or more at a time: each update adds to what was sent before.
 */
export function checkTaxForm (input: Json): void {
  const unknown = Object.keys(input).filter(k => !TAX_FORM.steps.includes(k)).map(k => ({ property: `input.${k}`, rule: 'additionalProperties' }))
  const violations = [...unknown, ...check(TAX_FORM.schema, input, 'input')]
  if (violations.length > 0) throw requestInvalid('body', violations)
}

export function updateTaxDetails (c: Change, { input, output }: TaxDetailsUpdate): void {
  const state = c.processes['tax-details']
  if (state.status === 'exempt') throw operationNotAllowed(['kyc-process-status-exempt'], 'The process is not required for this user')
  const reasons: string[] = []
  if (!hasName(c.record) || !hasBirthdate(c.record)) reasons.push('incomplete-profile')
  if (!isAddressComplete(c.record)) reasons.push('incomplete-address')
  if (reasons.length > 0) throw operationNotAllowed(reasons, 'User cannot submit tax details due to incomplete declared information')
  checkTaxForm(input)
  const identification = input.taxIdentification as { documents: Array<{ number?: string, reason?: string }>, signature?: string } | undefined
  identification?.documents.forEach((d, i) => {
    const property = `input.taxIdentification.documents[${i}]`
    if (d.number !== undefined && !TAX_NUMBER.test(d.number)) {
      throw conflict('document_number_invalid', 'The provided document number is invalid', { context: 'body', property: `${property}.number` })
    }
    if (d.number === undefined && d.reason !== undefined && !TAX_DOCUMENT_REASONS.includes(d.reason)) {
      throw conflict('document_reason_not_supported', 'The provided document reason is not supported', { context: 'body', property: `${property}.reason` })
    }
  })
  const signature = identification?.signature
  if (signature !== undefined && signature.trim().toLowerCase() !== String(c.record.fullName).trim().toLowerCase()) {
    throw conflict('certification_signature_mismatch', 'The signature does not match the user\'s full name', { context: 'body', property: 'input.taxIdentification.signature' })
  }
  const ignored = ignoreOutput(c, 'tax-details', output)
  if (!ignored) checkPast(output?.verifiedAt, c.now, 'output.verifiedAt')
  const merged: Json = { ...state.input, ...input }
  const next: ProcessState = { status: state.status, input: merged }
  if (!ignored && output !== undefined) {
    c.set('tax-details', clean({ ...next, status: output.result === 'approved' ? 'ok' : 'failed', output }))
    return
  }
  // Until every part is in, the process waits for the rest.
  if (!TAX_FORM.steps.every(step => merged[step] !== undefined)) { c.set('tax-details', clean({ ...next, status: 'pending' })); return }
  c.set('tax-details', clean(submitted(c, 'tax-details', next, undefined)))
}

// ---- Reviews and forced outcomes ----

const [givenOf, familyOf] = [
  (fullName: unknown): string => String(fullName ?? '').split(/\s+/)[0],
  (fullName: unknown): string | undefined => String(fullName ?? '').split(/\s+/).slice(1).join(' ') || undefined
]

/** The service's review of a process, once its time has come: the sandbox approves. */
export function completeReview (c: Change, code: ProcessCode): void {
  const state = c.processes[code]
  if (state.reviewDueAt === undefined) return
  const done = { ...state, reviewDueAt: undefined }
  const verifiedAt = c.iso
  switch (code) {
    case 'customer-due-diligence':
    case 'crypto-risk-assessment':
    case 'self-categorization-statement':
      evaluateForm(c, code, done)
      return
    case 'screening':
    case 'risk':
      c.set(code, clean({ ...done, status: 'ok', output: { result: 'approved' } }))
      return
    case 'tax-details':
      c.set(code, clean({ ...done, status: 'ok', output: { result: 'approved', verifiedAt } }))
      return
    case 'identity': {
      const r = c.record
      const output = state.type === 'document-submission'
        ? {
            provider: 'sandbox',
            document: { type: 'passport', number: `SBX${c.userId.replace(/-/g, '').slice(0, 9).toUpperCase()}`, country: String(r.primaryCitizenship ?? addressOf(r).country) },
            person: defined({ givenName: givenOf(r.fullName), familyName: familyOf(r.fullName), birthdate: r.birthdate }),
            verifiedAt
          }
        : { provider: 'sandbox', verifiedAt }
      c.set(code, clean({ ...done, status: 'ok', output }))
      return
    }
    case 'proof-of-address': {
      const r = c.record
      const output = state.type === 'document-submission'
        ? { provider: 'sandbox', person: defined({ givenName: givenOf(r.fullName), familyName: familyOf(r.fullName), address: addressOf(r) }), verifiedAt }
        : { provider: 'sandbox', verifiedAt }
      c.set(code, clean({ ...done, status: 'ok', output }))
      return
    }
    case 'email':
    case 'phone':
    case 'enhanced-due-diligence':
      c.set(code, clean({ ...done, status: 'ok', output: { verifiedAt } }))
      return
    default:
      c.set(code, clean({ ...done, status: 'ok' }))
  }
}

/** Sets a process's outcome from the control API: what the service (or a partner) would decide. */
export function force (c: Change, code: ProcessCode, status: ProcessStatus, reason?: string): void {
  const state = c.processes[code]
  const next: ProcessState = { ...state, status, reason, reviewDueAt: undefined }
  if (code === 'screening' || code === 'risk') {
    next.output = status === 'ok' ? { result: 'approved' } : status === 'failed' ? { result: 'rejected' } : undefined
  }
  const maximum = MAX_ATTEMPTS[code]
  if (maximum !== undefined && (status === 'ok' || status === 'failed')) {
    const used = Math.max(1, state.attempts ?? 1)
    next.attempts = status === 'failed' ? maximum : used
    next.output = { result: status === 'ok' ? 'approved' : 'rejected', attempts: { used: next.attempts, maximum }, ...(status === 'ok' ? { verifiedAt: c.iso } : {}) }
  }
  if (code === 'customer-due-diligence' && status === 'ok' && state.output === undefined) {
    next.output = { score: 'low', expiresAt: new Date(c.now + YEAR_MS).toISOString(), verifiedAt: c.iso }
  }
  c.set(code, clean(next))
}

export const MANUAL: readonly ManualProcess[] = ['profile', 'address', 'email', 'phone', 'identity', 'proof-of-address', 'customer-due-diligence', 'enhanced-due-diligence', 'crypto-risk-assessment', 'self-categorization-statement', 'tax-details']
