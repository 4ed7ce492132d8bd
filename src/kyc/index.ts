// The KYC area: GET /core/kyc and the eleven PATCH /core/kyc/processes/<process> of individual
// users, the organization's KYC configuration (fixture key `kycModels`), the scheduler that
// completes the service's reviews, and the sandbox controls over outcomes and KYB.
import type { FastifyInstance } from 'fastify'
import { Type, type TSchema } from 'typebox'
import { AcceptLanguageHeader, UserContextHeaders } from '../../schemas/headers.js'
import {
  AddressUpdate, CryptoRiskAssessmentUpdate, CustomerDueDiligenceUpdate, EmailUpdate, EnhancedDueDiligenceUpdate, IdentityUpdate,
  KycOverview, KycOverviewQuery, PhoneUpdate, ProcessUpdated, ProcessView, ProfileUpdate, ProofOfAddressUpdate,
  SelfCategorizationStatementUpdate, TaxDetailsUpdate, processKey, type ManualProcess
} from '../../schemas/kyc.js'
import { acceptLanguage, contentLanguage, type ContentLanguage } from '../http/user-context.js'
import { localize } from './translations.js'
import { commaSeparated } from '../http/query.js'
import { defineArea } from '../kit/area.js'
import { config } from './config.js'
import { operation, type OperationRequest } from '../kit/operation.js'
import * as handlers from './handlers.js'
import { KycService, type Updated } from './service.js'
import { kycFixture } from './fixtures.js'
import { migrations } from './migrations.js'
import sandboxRoutes from './sandbox-routes.js'
import { usersPanel } from './dashboard-panel.js'

const TAG = 'KYC'

const headersOf = (app: FastifyInstance, opts: { userContext: boolean, locale: boolean }): TSchema => Type.Object({
  ...(opts.userContext ? UserContextHeaders(app.config.serviceName).properties : {}),
  ...(opts.locale ? AcceptLanguageHeader.properties : {})
})

const WHO = 'Individual users only (`user:individual`); a client acts for one with `X-On-Behalf-Of`.'

interface ProcessOperation<B extends TSchema> {
  code: ManualProcess
  deprecated?: boolean
  id: string
  summary: string
  body: B
  locale: boolean
  userContext: boolean
  description: string
  responses: Record<number, string>
  /** The update, given the body its schema validated (typed as the route's handler sees it). */
  handle: (app: FastifyInstance, organizationId: string, userId: string, body: OperationRequest<{ body: B }>['body']) => Promise<Updated>
}

const notAllowed = '`operation_not_allowed` (`details.reasons`)'

/** A process with the form of its hint in the answer's language. */
const localized = (view: ProcessView, language: ContentLanguage): ProcessView =>
  view.hint === undefined ? view : { ...view, hint: { ...view.hint, schema: localize(view.hint.schema, language), uiSchema: localize(view.hint.uiSchema, language) } }

/**
 * The language of the answer's text for the request's `Accept-Language` (409 `locale_invalid`
 * when it names no supported locale). The answer tells it in `Content-Language` once it has text
 * in it: an error's message is English, and says nothing of the kind.
 */
function answerLanguage (header: string | undefined): ContentLanguage {
  acceptLanguage(header)
  return contentLanguage(header)
}

/** The answer header that says the language of a 200's text. */
const CONTENT_LANGUAGE = { 'content-language': { type: 'string', enum: ['en', 'pt-PT'], description: 'The language of the text of `hint`\'s forms.' } }

const LANGUAGE = 'The text of the forms in `hint` (titles, labels, descriptions) is in the language `Accept-Language` negotiates where the sandbox has it ' +
  '(`en`, `en-GB`, `en-US`: English; `pt`, `pt-PT`: European Portuguese), else English; `Content-Language` says which.'

async function kycRoutes (app: FastifyInstance): Promise<void> {
  app.addSchema(ProcessView)
  const kyc = new KycService(app)
  app.decorate('kyc', kyc)
  const stop = kyc.start()
  app.addHook('onClose', async () => { await stop() })

  operation(app, {
    id: 'getKycOverview',
    method: 'GET',
    url: '/core/kyc',
    tag: TAG,
    scopes: ['core.kyc:read'],
    subjects: ['user:individual'],
    summary: 'Get the KYC overview',
    description: 'The summary and the 13 processes of the acting user. `detailed` (comma-separated overview keys, such as `profile,proofOfAddress`) ' +
      'adds `verification`, `input`, `output` and `hint` to those processes. ' + LANGUAGE + ' ' + WHO,
    querystring: KycOverviewQuery,
    headers: headersOf(app, { userContext: true, locale: true }),
    preValidation: commaSeparated('detailed'),
    responses: {
      200: { description: 'The KYC overview.', headers: CONTENT_LANGUAGE, ...KycOverview },
      409: '`locale_invalid`: `Accept-Language` names no supported locale.'
    }
  }, async (request, reply) => {
    const language = answerLanguage(request.headers['accept-language'])
    const answer = await kyc.overview(request.auth.organizationId, request.auth.userId, request.query.detailed)
    reply.header('content-language', language)
    return { ...answer, processes: Object.fromEntries(Object.entries(answer.processes).map(([key, view]) => [key, localized(view, language)])) }
  })

  for (const register of PROCESS_OPERATIONS) register(app)

  await app.register(sandboxRoutes)
}

/**
 * Declares the update of one process: its operation is registered with the body's schema, and
 * `handle` is given the body that schema validated.
 */
function processOperation<B extends TSchema> (def: ProcessOperation<B>): (app: FastifyInstance) => void {
  return app => {
    operation(app, {
      id: def.id,
      method: 'PATCH',
      url: `/core/kyc/processes/${def.code}`,
      tag: TAG,
      scopes: [`core.kyc.${def.code}:update`],
      subjects: ['user:individual'],
      summary: def.summary,
      description: `${def.description} Every status change emits \`core.kyc.${def.code}.status-changed\`.${def.locale ? ` ${LANGUAGE}` : ''} ${WHO}`,
      body: def.body,
      headers: headersOf(app, def),
      ...(def.deprecated === true ? { deprecated: true } : {}),
      responses: {
        200: { description: 'The process after the update; `warnings` lists fields that were ignored.', ...(def.locale ? { headers: CONTENT_LANGUAGE } : {}), ...ProcessUpdated(def.code) },
        ...def.responses
      }
    }, async (request, reply) => {
      // The header as Node gives it: its schema (user context, locale or both) is the process's.
      const language = def.locale ? answerLanguage(request.raw.headers['accept-language']) : undefined
      const updated = await def.handle(app, request.auth.organizationId, request.auth.userId, request.body)
      if (language !== undefined) reply.header('content-language', language)
      const view = language === undefined ? updated.view : localized(updated.view, language)
      return Object.keys(updated.warnings).length === 0 ? { [processKey(def.code)]: view } : { [processKey(def.code)]: view, warnings: updated.warnings }
    })
  }
}

const PROCESS_OPERATIONS: Array<(app: FastifyInstance) => void> = [
  processOperation({
    code: 'profile',
    id: 'updateKycProfile',
    summary: 'Update the profile',
    body: ProfileUpdate,
    locale: false,
    userContext: true,
    description: 'Declares the user\'s name, birthdate (18 to 100 years ago on the sandbox clock) and address, written to the user. ' +
      'The profile is `ok` once it holds a full name, a birthdate, and an address with city, line 1 and postal code. ' +
      'Fields the rules disallow, or that may not change once stored (`verification.rules`), are ignored with a `warnings.input` entry rather than refused.',
    responses: { 409: '`invalid_characters`, `date_invalid`, `country_not_supported`, `subdivision_not_supported`, `po_boxes_not_allowed` or `postal_code_invalid`.' },
    handle: handlers.profile
  }),
  processOperation({
    code: 'address',
    id: 'updateKycAddress',
    deprecated: true,
    summary: 'Update the address (deprecated)',
    body: AddressUpdate,
    locale: false,
    userContext: true,
    description: 'Deprecated: the profile holds the address. Changing a stored subdivision needs a partner-verified proof of address, and is refused for US residents.',
    responses: { 409: `\`subdivision_not_supported\`, \`po_boxes_not_allowed\`, \`postal_code_invalid\`, or ${notAllowed}.` },
    handle: handlers.address
  }),
  processOperation({
    code: 'email',
    id: 'updateKycEmail',
    summary: 'Update the e-mail address',
    body: EmailUpdate,
    locale: false,
    userContext: true,
    description: 'Declares the user\'s e-mail address (written to the user). Partner-verified with `output`: `ok` at once; uphold-verified: `pending` until the service\'s review. ' +
      'Addresses at `.invalid` or `.localhost` domains are `email_incorrect_or_disallowed`.',
    responses: { 409: `\`email_already_exists\`, \`email_incorrect_or_disallowed\`, \`date_invalid\`, or ${notAllowed} (\`email-already-verified\`).` },
    handle: handlers.email
  }),
  processOperation({
    code: 'phone',
    id: 'updateKycPhone',
    summary: 'Update the phone number',
    body: PhoneUpdate,
    locale: false,
    userContext: true,
    description: 'Declares the user\'s phone number (written to the user). Partner-verified with `output`: `ok` at once; uphold-verified: `pending` until the service\'s review. ' +
      'Numbers of fewer than 7 digits are `phone_invalid`.',
    responses: { 409: `\`phone_already_exists\`, \`phone_invalid\`, \`country_not_supported\`, \`date_invalid\`, or ${notAllowed} (\`phone-already-verified\`).` },
    handle: handlers.phone
  }),
  processOperation({
    code: 'identity',
    id: 'updateKycIdentity',
    summary: 'Submit the identity',
    body: IdentityUpdate,
    locale: false,
    userContext: true,
    description: 'Submits identity documents (`media`: uploaded files of the user) or data for electronic verification. Needs a profile with name and birthdate. ' +
      'Partner-verified with `output`: `ok` at once (an `output.person.address` also completes a pending proof of address, `from-identity`); ' +
      'uphold-verified: `pending` until the service\'s review. Identity becoming `ok` runs screening.',
    responses: {
      404: '`entity_not_found` (`details.entity: "file"`): a file of `media` is not the user\'s.',
      409: `\`country_not_supported\`, \`date_invalid\`, \`invalid_characters\`, \`subdivision_not_supported\`, \`file_invalid\` (not uploaded), or ${notAllowed}: ` +
        '`missing-name`, `missing-birthdate`, `kyc-process-update-not-allowed`, `permission-denied`.'
    },
    handle: handlers.identity
  }),
  processOperation({
    code: 'proof-of-address',
    id: 'updateKycProofOfAddress',
    summary: 'Submit the proof of address',
    body: ProofOfAddressUpdate,
    locale: false,
    userContext: true,
    description: 'Submits a proof of address (`media`: uploaded files of the user) or data for electronic verification. Needs a profile with name and a complete address. ' +
      'Partner-verified with `output`: `ok` at once; uphold-verified: `pending` until the service\'s review.',
    responses: {
      404: '`entity_not_found` (`details.entity: "file"`): a file of `media` is not the user\'s.',
      409: `\`invalid_characters\`, \`country_not_supported\`, \`subdivision_not_supported\`, \`file_invalid\`, \`date_invalid\`, or ${notAllowed}: ` +
        '`missing-name`, `incomplete-address`, `kyc-process-update-not-allowed`, `permission-denied`.'
    },
    handle: handlers.proofOfAddress
  }),
  processOperation({
    code: 'customer-due-diligence',
    id: 'updateKycCustomerDueDiligence',
    summary: 'Answer the customer due diligence form',
    body: CustomerDueDiligenceUpdate,
    locale: true,
    userContext: true,
    description: 'Answers one step of the form in `hint` per call (`answers: { <step>: {...} }`); answering an earlier step starts again from it. ' +
      'After the last step the service evaluates it (uphold-verified: after its review) and scores it; a `high` score makes enhanced due diligence required. ' +
      'A partner-verified process with `output` takes the answers whole and is `ok` at once.',
    responses: {
      404: '`entity_not_found` (`details.entity: "form"`): `formId` is not the form of the process.',
      409: `\`locale_invalid\`, \`date_invalid\`, or ${notAllowed} (\`form-already-completed\`, \`kyc-process-update-not-allowed\`).`
    },
    handle: handlers.form('customer-due-diligence')
  }),
  processOperation({
    code: 'enhanced-due-diligence',
    id: 'updateKycEnhancedDueDiligence',
    summary: 'Submit the enhanced due diligence',
    body: EnhancedDueDiligenceUpdate,
    locale: false,
    userContext: true,
    description: 'Submits a source-of-funds proof (an uploaded file of the user). The process is `exempt` until customer due diligence scores `high`.',
    responses: {
      404: '`entity_not_found` (`details.entity: "file"`).',
      409: `\`file_invalid\`, \`date_invalid\`, or ${notAllowed} (\`kyc-process-update-not-allowed\`).`
    },
    handle: handlers.enhancedDueDiligence
  }),
  processOperation({
    code: 'crypto-risk-assessment',
    id: 'updateKycCryptoRiskAssessment',
    summary: 'Answer the crypto risk assessment form',
    body: CryptoRiskAssessmentUpdate,
    locale: true,
    userContext: true,
    description: 'Answers one step of the form per call. After the last step it is evaluated: approved (`ok`), or rejected, which leaves the process `pending` ' +
      'with `output.attempts` counted and the form to fill in again, until 5 attempts make it `failed`. Required for residents of the configured countries (default GB), `exempt` elsewhere.',
    responses: {
      404: '`entity_not_found` (`details.entity: "form"`).',
      409: `\`locale_invalid\`, \`date_invalid\`, or ${notAllowed} (\`form-already-completed\`, \`kyc-process-update-not-allowed\`).`
    },
    handle: handlers.form('crypto-risk-assessment')
  }),
  processOperation({
    code: 'self-categorization-statement',
    id: 'updateKycSelfCategorizationStatement',
    summary: 'Answer the self-categorization statement form',
    body: SelfCategorizationStatementUpdate,
    locale: true,
    userContext: true,
    description: 'As the crypto risk assessment, with 30 attempts; an approved statement expires after a year.',
    responses: {
      404: '`entity_not_found` (`details.entity: "form"`).',
      409: `\`locale_invalid\`, \`date_invalid\`, or ${notAllowed} (\`form-already-completed\`, \`kyc-process-update-not-allowed\`).`
    },
    handle: handlers.form('self-categorization-statement')
  }),
  processOperation({
    code: 'tax-details',
    id: 'updateKycTaxDetails',
    summary: 'Submit the tax details',
    body: TaxDetailsUpdate,
    locale: true,
    userContext: false,
    description: 'Submits the tax form of `hint`: its parts at once or one at a time, each update adding to the ones before; the review starts once both are in. ' +
      'The residency may give an `address`: its country open to residents, its subdivision the country\'s, its postal code the country\'s form ' +
      '(409 on `input.taxResidency.address.country`, `.subdivision`, `.postalCode`). Needs a complete profile and address; `exempt` processes refuse updates.',
    responses: {
      409: '`locale_invalid`, `country_not_supported`, `subdivision_not_supported`, `postal_code_invalid`, `document_number_invalid`, ' +
        '`document_reason_not_supported`, `certification_signature_mismatch`, ' +
        `or ${notAllowed} (\`incomplete-profile\`, \`incomplete-address\`, \`kyc-process-status-exempt\`).`
    },
    handle: handlers.taxDetails
  })
]

export default defineArea({
  config,
  name: 'kyc',
  tags: [{ name: TAG, description: 'Know your customer: the processes that verify an individual user.' }],
  migrations,
  fixtures: [kycFixture],
  dashboardPanels: [usersPanel],
  plugin: kycRoutes
})
