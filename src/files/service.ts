// Files as the API shows them: creating one (its checks, its upload target, its first metadata)
// and reading one back with a fresh download link once it is uploaded.
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { ApiError, conflict, entityNotFound } from '../errors.js'
import { catalogueService } from '../catalogue/lookup.js'
import { metadataAtCreation } from '../metadata/revision.js'
import type { FileCategory } from '../../schemas/catalogue.js'
import type { CreateFileRequest } from '../../schemas/files.js'
import { filesStore, type FileRecord, type FilesStore } from './store.js'
import { signerOf } from './signing.js'

/** How many files one user may hold (pending and uploaded); the next creation is 409. */
export const MAX_FILES_PER_USER = 100

export const UPLOAD_PATH = '/file-storage/uploads'
export const DOWNLOAD_PATH = '/file-storage/downloads'

export const filesOf = (app: FastifyInstance): FilesStore => app.storage.store(filesStore)

export const fileNotFound = (): ApiError => entityNotFound('file')

/** The file settings of a category, as `core.list-files-settings` answers them (the catalogue's). */
export function settingsOf (app: FastifyInstance, category: string): { allowedContentTypes: string[], minFileSize: number, maxFileSize: number, expiresIn: number } | undefined {
  return catalogueService(app).fileSettings({ category: [category as FileCategory] })[category as FileCategory]
}

/** Media types compare without parameters and case. */
export const mediaType = (value: string): string => value.split(';')[0].trim().toLowerCase()

interface FileView {
  id: string
  status: 'pending' | 'uploaded'
  category: string
  contentType: string
}

const view = (f: FileRecord): FileView => ({ id: f.id, status: f.status, category: f.category, contentType: f.contentType })

/**
 * Creates a pending file of the acting user with its upload target (`base` is the public URL of
 * this server). 409 `file_content_type_not_allowed` and `max_files_limit_exceeded`; metadata over
 * the size limit does not stop the creation (`errors.metadata`).
 */
export async function createFile (app: FastifyInstance, organizationId: string, userId: string, input: CreateFileRequest, base: string): Promise<Record<string, unknown>> {
  const settings = settingsOf(app, input.category)
  if (settings === undefined || !settings.allowedContentTypes.includes(mediaType(input.contentType))) {
    throw conflict('file_content_type_not_allowed', 'The file content type is not allowed for the specified category')
  }
  const now = app.clock.iso()
  const { metadata, errors } = metadataAtCreation(input.metadata, now)
  const record: FileRecord = {
    id: randomUUID(),
    organizationId,
    userId,
    status: 'pending',
    category: input.category,
    contentType: input.contentType,
    size: null,
    createdAt: now,
    uploadedAt: null
  }
  const created = await filesOf(app).create(record, MAX_FILES_PER_USER, metadata)
  if (!created.ok) {
    if (created.reason === 'limit-exceeded') throw conflict('max_files_limit_exceeded', 'The maximum number of allowed files has been exceeded')
    // The guard saw the user a moment ago: it was deleted since.
    throw entityNotFound('user')
  }
  const expiresAt = app.clock.now() + settings.expiresIn * 1000
  const { policy, signature } = (await signerOf(app)).signUpload({ fileId: record.id, organizationId, contentType: record.contentType, expiresAt })
  const file = {
    ...view(record),
    upload: {
      url: `${base}${UPLOAD_PATH}/${record.id}`,
      formData: { key: record.id, 'Content-Type': record.contentType, policy, signature },
      expiresAt: new Date(expiresAt).toISOString()
    }
  }
  return errors === undefined ? { file } : { file, errors }
}

/** A file of the acting user; another user's, or another organization's, is 404. */
export async function getFile (app: FastifyInstance, organizationId: string, userId: string, fileId: string, base: string): Promise<Record<string, unknown>> {
  const found = await filesOf(app).get(organizationId, fileId)
  if (found === undefined || found.userId !== userId) throw fileNotFound()
  if (found.status !== 'uploaded') return { file: view(found) }
  const expiresIn = settingsOf(app, found.category)?.expiresIn ?? 900
  const expires = Math.floor(app.clock.now() / 1000) + expiresIn
  const signature = (await signerOf(app)).signDownload(organizationId, found.id, expires)
  return {
    file: {
      ...view(found),
      download: { url: `${base}${DOWNLOAD_PATH}/${found.id}?expires=${expires}&signature=${signature}`, expiresAt: new Date(expires * 1000).toISOString() }
    }
  }
}
