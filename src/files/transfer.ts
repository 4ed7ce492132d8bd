// The object store the sandbox plays: the upload target of core.create-file's answer, and the
// download links of core.get-file's. Not API operations (no Bearer token): the signature in the
// form or the link is the credential, checked against the sandbox clock. They answer as an object
// store would (204 on upload, the bytes with their content type on download), errors in the API's
// `{ code, message, details }` shape.
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import multipart from '@fastify/multipart'
import { Type } from 'typebox'
import { ApiError, entityNotFound, requestInvalid, type Violation } from '../errors.js'
import { errorResponse } from '../../schemas/common.js'
import { DownloadQuery, FileParams, UploadForm, UploadParams } from '../../schemas/files.js'
import { FILE_CATEGORIES } from '../../schemas/catalogue.js'
import { noContent } from '../kit/operation.js'
import { DOWNLOAD_PATH, UPLOAD_PATH, filesOf, mediaType, settingsOf } from './service.js'
import { signerOf } from './signing.js'

export const TRANSFER_TAG = 'File storage'

const FORM_FIELDS = ['key', 'Content-Type', 'policy', 'signature'] as const

const signatureInvalid = (what: 'upload' | 'download'): ApiError =>
  new ApiError(403, 'signature_invalid', `The ${what} signature does not match the request`)
const uploadExpired = (expiresAt: number): ApiError =>
  new ApiError(403, 'upload_expired', 'The upload target has expired', { expiresAt: new Date(expiresAt).toISOString() })
const downloadExpired = (expiresAt: number): ApiError =>
  new ApiError(403, 'download_expired', 'The download link has expired', { expiresAt: new Date(expiresAt).toISOString() })
const typeNotAllowed = (contentType: string): ApiError =>
  new ApiError(415, 'media_type_unsupported', 'The file content type is not the one the upload target was issued for', { contentType })
const tooLarge = (limit: number): ApiError =>
  new ApiError(413, 'content_too_large', 'The file size is greater than maximum size limit', { threshold: { unit: 'bytes', limit } })

/** The largest file any category accepts: the parser's own limit, the category's checked after. */
function largestFile (app: FastifyInstance): number {
  return Math.max(...FILE_CATEGORIES.map(c => settingsOf(app, c)?.maxFileSize ?? 0))
}

export default async function transferRoutes (app: FastifyInstance): Promise<void> {
  // Registered here only: the API's own routes keep refusing multipart bodies with 415.
  await app.register(multipart, {
    throwFileSizeLimit: false,
    limits: { fields: 10, fieldSize: 4096, files: 1, parts: 12, fileSize: largestFile(app) + 1 }
  })
  // Params and query typed from their schemas, as operation() types them.
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()

  typed.route({
    method: 'POST',
    url: `${UPLOAD_PATH}/:fileId`,
    // The form is read as a stream below; its schema documents it.
    validatorCompiler: () => () => true,
    schema: {
      tags: [TRANSFER_TAG],
      summary: 'Upload a file (pre-signed upload target)',
      operationId: 'sandboxUploadFile',
      description: 'The `upload` target of `POST /core/files`: no Bearer token, the signed form is the credential. Send `multipart/form-data` with every field of ' +
        '`upload.formData` as given (`key`, `Content-Type`, `policy`, `signature`), then the file as the last part (any field name; `file` by convention). ' +
        'Checks, in order: the signature of `policy` (403 `signature_invalid`, also when `key` or the URL names another file); the sandbox clock against ' +
        'the target\'s `expiresAt`, the file settings\' `expiresIn` after creation (403 `upload_expired`); the file still exists (404) and is pending ' +
        '(409 `file_already_uploaded`: a file is uploaded once); the `Content-Type` field and the file part\'s own type, unless `application/octet-stream`, ' +
        'are the file\'s content type, still allowed for its category by `GET /core/files/settings` (415 `media_type_unsupported`); the size is within the ' +
        'category\'s `minFileSize` (400 `request_invalid`) and `maxFileSize` (413 `content_too_large`). A body that is not `multipart/form-data` is 415; ' +
        'a missing field or file is 400 `request_invalid`. On success the bytes are stored and the file turns `uploaded`: 204, no body.',
      params: UploadParams,
      consumes: ['multipart/form-data'],
      body: UploadForm,
      security: [],
      response: {
        204: noContent('Uploaded: the file is `uploaded`.'),
        400: errorResponse('A form field or the file is missing, or the file is smaller than the category\'s `minFileSize` (`request_invalid`).'),
        403: errorResponse('The signature does not match (`signature_invalid`) or the target has expired (`upload_expired`, `details.expiresAt`).'),
        404: errorResponse('The file no longer exists (`entity_not_found`, `details.entity: "file"`): its user was deleted, or the sandbox reset.'),
        409: errorResponse('The file is already uploaded (`file_already_uploaded`).'),
        413: errorResponse('The file is larger than the category\'s `maxFileSize` (`content_too_large`, `details.threshold`).'),
        415: errorResponse('The body is not `multipart/form-data`, or the file\'s type is not the one the target was issued for (`media_type_unsupported`).')
      }
    },
    handler: async (request, reply) => {
      const { fileId } = request.params
      if (!request.isMultipart()) throw new ApiError(415, 'media_type_unsupported', 'The request content type is not supported', { contentType: 'multipart/form-data' })
      const signer = await signerOf(app)
      const files = filesOf(app)
      const fields: Record<string, string> = {}
      let problem: ApiError | undefined
      let upload: { organizationId: string, bytes: Buffer } | undefined
      let sawFile = false

      /** The checks that come before the bytes are read: the form, its signature, its expiry, the file. */
      const admit = async (partType: string): Promise<{ organizationId: string, min: number, max: number } | ApiError> => {
        const missing: Violation[] = FORM_FIELDS.filter(f => fields[f] === undefined).map(property => ({ property, rule: 'required' }))
        if (missing.length > 0) return requestInvalid('body', missing)
        const policy = signer.verifyUpload(fields.policy, fields.signature)
        if (policy === undefined || policy.fileId !== fileId || fields.key !== fileId) return signatureInvalid('upload')
        // The upload form was issued on its organization's clock.
        if (app.clock.nowFor(policy.organizationId) > policy.expiresAt) return uploadExpired(policy.expiresAt)
        const file = await files.get(policy.organizationId, fileId)
        if (file === undefined) return entityNotFound('file')
        if (file.status !== 'pending') return new ApiError(409, 'file_already_uploaded', 'The file has already been uploaded')
        const settings = settingsOf(app, file.category)
        const declared = mediaType(fields['Content-Type'])
        if (declared !== mediaType(file.contentType) || settings === undefined || !settings.allowedContentTypes.includes(declared)) return typeNotAllowed(fields['Content-Type'])
        if (mediaType(partType) !== 'application/octet-stream' && mediaType(partType) !== declared) return typeNotAllowed(partType)
        return { organizationId: file.organizationId, min: settings.minFileSize, max: settings.maxFileSize }
      }

      try {
        for await (const part of request.parts()) {
          if (part.type === 'field') {
            if (!sawFile && typeof part.value === 'string') fields[part.fieldname] = part.value
            continue
          }
          if (sawFile) { part.file.resume(); continue }
          sawFile = true
          const admitted = await admit(part.mimetype)
          if (admitted instanceof ApiError) {
            problem = admitted
            part.file.resume()
            continue
          }
          const chunks: Buffer[] = []
          let size = 0
          for await (const chunk of part.file as AsyncIterable<Buffer>) {
            size += chunk.length
            if (size <= admitted.max) chunks.push(chunk)
          }
          if (size > admitted.max || part.file.truncated) problem = tooLarge(admitted.max)
          else if (size < admitted.min) problem = requestInvalid('body', [{ property: 'file', rule: 'minSize', ruleParams: { limit: admitted.min, unit: 'bytes' } }])
          else upload = { organizationId: admitted.organizationId, bytes: Buffer.concat(chunks, size) }
        }
      } catch (err) {
        if (err instanceof ApiError) throw err
        request.log.info({ err }, 'malformed multipart upload')
        throw requestInvalid('body', [{ property: '', rule: 'format', ruleParams: { format: 'multipart/form-data' } }])
      }
      if (problem !== undefined) throw problem
      if (!sawFile || upload === undefined) throw requestInvalid('body', [{ property: 'file', rule: 'required' }])
      const outcome = await files.upload(upload.organizationId, fileId, upload.bytes, app.clock.of(upload.organizationId).iso())
      if (outcome === 'not-found') throw entityNotFound('file')
      if (outcome === 'already-uploaded') throw new ApiError(409, 'file_already_uploaded', 'The file has already been uploaded')
      return reply.code(204).send()
    }
  })

  typed.route({
    method: 'GET',
    url: `${DOWNLOAD_PATH}/:fileId`,
    schema: {
      tags: [TRANSFER_TAG],
      summary: 'Download a file (pre-signed link)',
      operationId: 'sandboxDownloadFile',
      description: 'The `download.url` of `GET /core/files/{fileId}`: no Bearer token, the signed link is the credential. It answers the stored bytes with the ' +
        'file\'s content type. It lives the file settings\' `expiresIn` from the read that issued it (sandbox clock; after it, 403 `download_expired`); ' +
        'any change to the link is 403 `signature_invalid`; a file that no longer exists is 404.',
      params: FileParams,
      querystring: DownloadQuery,
      security: [],
      response: {
        200: { description: 'The file\'s bytes, with its content type.', content: { 'application/octet-stream': { schema: Type.String({ format: 'binary' }) } } },
        400: errorResponse('`expires` or `signature` is missing (`request_invalid`).'),
        403: errorResponse('The link was changed (`signature_invalid`) or has expired (`download_expired`, `details.expiresAt`).'),
        404: errorResponse('The file no longer exists, or is not uploaded (`entity_not_found`, `details.entity: "file"`).')
      }
    },
    handler: async (request, reply) => {
      const { fileId } = request.params
      const { expires, signature } = request.query
      const signer = await signerOf(app)
      const file = await filesOf(app).find(fileId)
      // Links are issued only for files that exist: an unknown id is a file deleted since.
      if (file === undefined) throw entityNotFound('file')
      if (!signer.verifyDownload(file.organizationId, fileId, expires, signature)) throw signatureInvalid('download')
      const expiresAt = Number(expires) * 1000
      if (app.clock.nowFor(file.organizationId) > expiresAt) throw downloadExpired(expiresAt)
      const bytes = file.status === 'uploaded' ? await filesOf(app).content(file.organizationId, fileId) : undefined
      if (bytes === undefined) throw entityNotFound('file')
      return reply
        .type(file.contentType)
        .header('cache-control', 'private, no-store')
        .header('x-content-type-options', 'nosniff')
        .header('content-disposition', 'attachment')
        .send(bytes)
    }
  })
}
