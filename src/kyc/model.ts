// A user's KYC as data: each process's stored state, the organization's configuration (which
// model verifies each process), the state a process starts in, how the API shows a process, and
// the summary derived from all of them. Pure functions: no storage, no clock but the one passed in.
import {
  MANUAL_PROCESSES, PROCESS_CODES, processKey,
  type ManualProcess, type ProcessCode, type ProcessStatus, type ProcessView, type SummaryStatus, type VerificationModel
} from '../../schemas/kyc.js'
import { CDD_FORM, CRA_FORM, SCS_FORM, TAX_FORM, type Form } from './forms.js'

export type Json = Record<string, unknown>
export type SubmissionType = 'document-submission' | 'electronic-verification'

/** What is stored of one process. */
export interface ProcessState {
  status: ProcessStatus
  /** Identity and proof of address: how the data was submitted. */
  type?: SubmissionType | 'from-identity' | 'none'
  input?: Json
  output?: Json
  /** CRA and SCS: evaluated attempts so far. */
  attempts?: number
  /** Why the process was forced to its status (sandbox control). */
  reason?: string
  /** When the service's own review completes (ms, sandbox clock); absent when none is outstanding. */
  reviewDueAt?: number
}

/** An organization's KYC configuration (fixture key `kycModels`). */
export interface KycConfig {
  models: Record<ManualProcess, VerificationModel>
  identityTypes: SubmissionType[]
  proofOfAddressTypes: SubmissionType[]
  /** Residence countries whose users must complete CRA and SCS; elsewhere they are `exempt`. */
  formsRequiredIn: string[]
  /** Processes exempt for every user of the organization. */
  exempt: ManualProcess[]
  /** Whether the organization's partner may open KYC sharing sessions. */
  kycSharing: boolean
}

/** The reference examples' models. */
export const DEFAULT_MODELS: Record<ManualProcess, VerificationModel> = {
  profile: 'none',
  address: 'none',
  email: 'partner-verified',
  phone: 'partner-verified',
  identity: 'partner-verified',
  'proof-of-address': 'partner-verified',
  'customer-due-diligence': 'uphold-verified',
  'enhanced-due-diligence': 'partner-verified',
  'crypto-risk-assessment': 'uphold-verified',
  'self-categorization-statement': 'uphold-verified',
  'tax-details': 'uphold-verified'
}

export const DEFAULT_CONFIG: KycConfig = {
  models: DEFAULT_MODELS,
  identityTypes: ['document-submission', 'electronic-verification'],
  proofOfAddressTypes: ['document-submission', 'electronic-verification'],
  formsRequiredIn: ['GB'],
  exempt: [],
  kycSharing: true
}

export const withDefaults = (stored: Partial<KycConfig> | undefined): KycConfig => ({
  ...DEFAULT_CONFIG,
  ...stored,
  models: { ...DEFAULT_MODELS, ...stored?.models }
})

export const FORMS: Partial<Record<ProcessCode, Form>> = {
  'customer-due-diligence': CDD_FORM,
  'crypto-risk-assessment': CRA_FORM,
  'self-categorization-statement': SCS_FORM
}
export const MAX_ATTEMPTS: Partial<Record<ProcessCode, number>> = { 'crypto-risk-assessment': 5, 'self-categorization-statement': 30 }

export const DEPENDENCIES: Record<ProcessCode, ManualProcess[]> = {
  profile: [],
  address: [],
  email: [],
  phone: [],
  identity: ['phone', 'profile'],
  'proof-of-address': ['phone', 'profile'],
  'customer-due-diligence': [],
  'enhanced-due-diligence': ['customer-due-diligence'],
  'crypto-risk-assessment': [],
  'self-categorization-statement': [],
  'tax-details': ['profile'],
  screening: [],
  risk: []
}

/** The user record as the KYC area reads and writes it (users.record). */
export interface UserData {
  id: string
  organizationId: string
  email: string
  record: Json
}

export interface Snapshot {
  user: UserData
  processes: Record<ProcessCode, ProcessState>
  config: KycConfig
}

export const modelOf = (config: KycConfig, code: ProcessCode): VerificationModel =>
  code === 'screening' || code === 'risk' ? 'uphold-verified' : config.models[code]

export const addressOf = (record: Json): Json => (record.address ?? {}) as Json
export const hasName = (record: Json): boolean => typeof record.fullName === 'string'
export const hasBirthdate = (record: Json): boolean => typeof record.birthdate === 'string'
export const isAddressComplete = (record: Json): boolean => {
  const a = addressOf(record)
  return typeof a.city === 'string' && typeof a.line1 === 'string' && typeof a.postalCode === 'string'
}
export const isProfileComplete = (record: Json): boolean => hasName(record) && hasBirthdate(record) && isAddressComplete(record)

/** The state a process starts in for this user, before any update. */
export function initialState (code: ProcessCode, record: Json, config: KycConfig): ProcessState {
  if ((config.exempt as string[]).includes(code)) return { status: 'exempt' }
  const none = (complete: boolean): ProcessState => ({ status: complete && modelOf(config, code) !== 'uphold-verified' ? 'ok' : 'pending' })
  switch (code) {
    case 'profile': return none(isProfileComplete(record))
    case 'address': return none(isAddressComplete(record))
    case 'identity':
    case 'proof-of-address': return { status: 'pending', type: 'none' }
    case 'enhanced-due-diligence': return { status: 'exempt' }
    case 'crypto-risk-assessment':
    case 'self-categorization-statement':
      return { status: config.formsRequiredIn.includes(String(addressOf(record).country)) ? 'pending' : 'exempt' }
    default: return { status: 'pending' }
  }
}

/** Every process of the user: the stored ones, and the rest in their initial state. */
export function complete (stored: Partial<Record<ProcessCode, ProcessState>>, record: Json, config: KycConfig): Record<ProcessCode, ProcessState> {
  return Object.fromEntries(PROCESS_CODES.map(c => [c, stored[c] ?? initialState(c, record, config)])) as Record<ProcessCode, ProcessState>
}

/** Whether an update is accepted now (identity and proof of address show it as `submittable`). */
export const isSubmittable = (state: ProcessState): boolean =>
  (state.status === 'pending' || state.status === 'failed') && state.reviewDueAt === undefined

type Rule = { presence: 'required' | 'optional' | 'disallowed', editable: boolean }

/** The profile's rules: what it must hold, and what may change once stored. */
export function profileRules (snapshot: Snapshot): Record<string, Rule & { rules?: Record<string, Rule> }> {
  const verifiedIdentity = snapshot.processes.identity.status === 'ok'
  const partner = modelOf(snapshot.config, 'profile') !== 'none'
  return {
    fullName: { presence: 'required', editable: !verifiedIdentity },
    birthdate: { presence: 'required', editable: !verifiedIdentity },
    birthplace: { presence: 'disallowed', editable: false, rules: { country: { presence: 'required', editable: false }, town: { presence: 'required', editable: false } } },
    primaryCitizenship: partner ? { presence: 'required', editable: true } : { presence: 'disallowed', editable: false },
    otherCitizenships: { presence: 'disallowed', editable: false },
    address: {
      presence: 'required',
      editable: true,
      rules: {
        subdivision: { presence: 'optional', editable: false },
        city: { presence: 'required', editable: true },
        line1: { presence: 'required', editable: true },
        line2: { presence: 'optional', editable: true },
        postalCode: { presence: 'required', editable: true }
      }
    }
  }
}

const pick = (record: Json, keys: string[]): Json =>
  Object.fromEntries(keys.filter(k => record[k] !== undefined).map(k => [k, record[k]]))

function inputOf (code: ProcessCode, state: ProcessState, record: Json): Json | undefined {
  switch (code) {
    case 'profile': return pick(record, ['fullName', 'birthdate', 'primaryCitizenship', 'address'])
    case 'address': return { address: addressOf(record) }
    case 'email': return { email: record.email }
    case 'phone': {
      // A phone given at the user's creation shows as declared until an update replaces it.
      const phone = record.phone as { number: string, country: string } | undefined
      return state.input ?? (phone === undefined ? undefined : { phone: phone.number, country: phone.country })
    }
    case 'screening':
    case 'risk': return undefined
    default: return state.input
  }
}

function hintOf (code: ProcessCode, state: ProcessState): ProcessView['hint'] {
  if (code === 'tax-details') return { type: 'form', schema: TAX_FORM.schema, uiSchema: TAX_FORM.uiSchema }
  const form = FORMS[code]
  if (form === undefined || state.status === 'ok' || state.status === 'exempt' || state.status === 'failed') return undefined
  return { type: 'form', formId: form.id, schema: form.schema, uiSchema: form.uiSchema }
}

/** A process as the API shows it; `detailed` adds its verification, input, output and hint. */
export function view (code: ProcessCode, snapshot: Snapshot, detailed: boolean): ProcessView {
  const state = snapshot.processes[code]
  const out: ProcessView = { code, status: state.status }
  const documented = code === 'identity' || code === 'proof-of-address'
  if (documented) out.type = state.type ?? 'none'
  if (!detailed) return out
  const automatic = code === 'screening' || code === 'risk' || state.type === 'from-identity'
  out.verification = {
    model: modelOf(snapshot.config, code),
    method: automatic ? 'automatic' : 'manual',
    ...(code === 'screening' ? { triggers: ['profile', 'identity'] as Array<'profile' | 'identity'> } : {}),
    dependencies: DEPENDENCIES[code],
    ...(documented ? { submittable: isSubmittable(state) } : {}),
    ...(code === 'profile' ? { rules: profileRules(snapshot) } : {})
  }
  const input = inputOf(code, state, snapshot.user.record)
  if (input !== undefined && !(code === 'email' && input.email === undefined)) out.input = input
  if (state.output !== undefined) out.output = state.output
  const hint = hintOf(code, state)
  if (hint !== undefined) out.hint = hint
  return out
}

/** The summary: `ok` when every process is ok or exempt, blocked or restricted by a failure, else pending. */
export function summary (processes: Record<ProcessCode, ProcessState>): { status: SummaryStatus, reason: string } {
  for (const code of ['screening', 'risk'] as const) {
    const s = processes[code]
    if (s.status === 'failed') return { status: 'blocked', reason: s.reason ?? code }
  }
  for (const code of MANUAL_PROCESSES) {
    const s = processes[code]
    if (s.status === 'failed') return { status: 'restricted', reason: s.reason ?? code }
  }
  const done = PROCESS_CODES.every(c => processes[c].status === 'ok' || processes[c].status === 'exempt')
  return { status: done ? 'ok' : 'pending', reason: 'none' }
}

export function overview (snapshot: Snapshot, detailed: Set<string>): { summary: ReturnType<typeof summary>, processes: Record<string, ProcessView> } {
  return {
    summary: summary(snapshot.processes),
    processes: Object.fromEntries(PROCESS_CODES.map(c => [processKey(c), view(c, snapshot, detailed.has(processKey(c)))]))
  }
}
