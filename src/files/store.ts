// The files area's store: file records and their bytes. Every statement is prepared once, here;
// the request paths write through the group commit. Other areas read files through `get` (the KYC
// area checks that a document file is the user's and uploaded).
import { groupCommit, type Db } from '../storage/db.js'
import { entityMetadataRemover } from '../storage/metadata.js'
import { memoOf } from '../storage/memo.js'
import { metadataInserter, type MetadataRevision } from '../storage/metadata.js'
import { isConstraint } from '../storage/core.js'

export type FileStatus = 'pending' | 'uploaded'

export interface FileRecord {
  id: string
  organizationId: string
  /** The user who created the file: the only one who reads it. */
  userId: string
  status: FileStatus
  /** `document`, `image` or `video`. */
  category: string
  /** The content type declared at creation; the upload must carry it. */
  contentType: string
  /** Bytes, once uploaded. */
  size: number | null
  createdAt: string
  uploadedAt: string | null
}

export type CreateFileResult =
  | { ok: true, file: FileRecord }
  | { ok: false, reason: 'limit-exceeded' | 'exists' | 'user-missing' }

export type UploadResult = 'uploaded' | 'not-found' | 'already-uploaded'

export interface FilesStore {
  /** A file of the organization, or undefined. */
  get (organizationId: string, fileId: string): Promise<FileRecord | undefined>
  /** A file by id, whichever organization: ids are unique across the sandbox. */
  find (fileId: string): Promise<FileRecord | undefined>
  /**
   * Creates the file, with its first metadata when given, unless the user already holds `limit`
   * files (checked in the same write, so concurrent creations cannot pass it).
   */
  create (file: FileRecord, limit: number, metadata?: MetadataRevision): Promise<CreateFileResult>
  /** Stores the bytes and marks the file uploaded, only while it is pending. */
  upload (organizationId: string, fileId: string, bytes: Buffer, uploadedAt: string): Promise<UploadResult>
  /** The bytes of an uploaded file. */
  content (organizationId: string, fileId: string): Promise<Buffer | undefined>
  /** The row of a fixture's file, written inside the fixture's transaction. */
  fixtureRow (file: FileRecord): Promise<void>
  /**
   * Deletes a user's files, their bytes and their metadata, inside the write that deletes the
   * user. Returns the ids of the files deleted.
   */
  removeUserFiles (organizationId: string, userId: string): Promise<string[]>
}

interface FileRow {
  id: string
  organization_id: string
  user_id: string
  status: FileStatus
  category: string
  content_type: string
  size: number | null
  created_at: string
  uploaded_at: string | null
}

const toFile = (r: FileRow): FileRecord => ({
  id: r.id,
  organizationId: r.organization_id,
  userId: r.user_id,
  status: r.status,
  category: r.category,
  contentType: r.content_type,
  size: r.size,
  createdAt: r.created_at,
  uploadedAt: r.uploaded_at
})

export function filesStore (db: Db): FilesStore {
  const get = db.prepare<[string, string], FileRow>('SELECT * FROM files WHERE organization_id = ? AND id = ?')
  const find = db.prepare<[string], FileRow>('SELECT * FROM files WHERE id = ?')
  const userExists = db.prepare<[string, string], number>('SELECT 1 FROM users WHERE organization_id = ? AND id = ?').pluck()
  const countForUser = db.prepare<[string, string], number>('SELECT count(*) FROM files WHERE organization_id = ? AND user_id = ?').pluck()
  const insert = db.prepare(`INSERT INTO files (id, organization_id, user_id, status, category, content_type, size, created_at, uploaded_at)
    VALUES (@id, @organizationId, @userId, @status, @category, @contentType, @size, @createdAt, @uploadedAt)`)
  const markUploaded = db.prepare("UPDATE files SET status = 'uploaded', size = ?, uploaded_at = ? WHERE organization_id = ? AND id = ? AND status = 'pending'")
  const insertContent = db.prepare('INSERT INTO file_contents (file_id, organization_id, bytes) VALUES (?, ?, ?)')
  const content = db.prepare<[string, string], Buffer>('SELECT bytes FROM file_contents WHERE organization_id = ? AND file_id = ?').pluck()
  const idsForUser = db.prepare<[string, string], string>('SELECT id FROM files WHERE organization_id = ? AND user_id = ?').pluck()
  const deleteMetadata = entityMetadataRemover(db, 'files')
  const deleteForUser = db.prepare('DELETE FROM files WHERE organization_id = ? AND user_id = ?')
  const insertMetadata = metadataInserter(db)
  const write = groupCommit(db)
  const memo = memoOf(db)
  return {
    async get (organizationId, fileId) {
      const row = await get.get(organizationId, fileId)
      return row === undefined ? undefined : toFile(row)
    },
    async find (fileId) {
      const row = await find.get(fileId)
      return row === undefined ? undefined : toFile(row)
    },
    async create (file, limit, metadata) {
      try {
        return await write(async (): Promise<CreateFileResult> => {
          if (await userExists.get(file.organizationId, file.userId) === undefined) return { ok: false, reason: 'user-missing' }
          if ((await countForUser.get(file.organizationId, file.userId))! >= limit) return { ok: false, reason: 'limit-exceeded' }
          await insert.run(file)
          if (metadata !== undefined) await insertMetadata({ organizationId: file.organizationId, entity: 'files', entityId: file.id }, metadata)
          return { ok: true, file }
        })
      } catch (err) {
        if (isConstraint(err)) return { ok: false, reason: 'exists' }
        throw err
      }
    },
    async upload (organizationId, fileId, bytes, uploadedAt) {
      return await write(async (): Promise<UploadResult> => {
        if ((await markUploaded.run(bytes.length, uploadedAt, organizationId, fileId)).changes === 0) {
          return await get.get(organizationId, fileId) === undefined ? 'not-found' : 'already-uploaded'
        }
        await insertContent.run(fileId, organizationId, bytes)
        return 'uploaded'
      })
    },
    async content (organizationId, fileId) {
      return await content.get(organizationId, fileId)
    },
    async fixtureRow (file) { await insert.run(file) },
    async removeUserFiles (organizationId, userId) {
      const ids = await idsForUser.all(organizationId, userId)
      for (const id of ids) {
        await deleteMetadata(organizationId, id)
        memo.forgetMetadata({ organizationId, entity: 'files', entityId: id })
      }
      // The bytes go with their files (a cascading key).
      await deleteForUser.run(organizationId, userId)
      return ids
    }
  }
}
