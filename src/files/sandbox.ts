// Files made by the sandbox: `POST /_sandbox/entities/files` and the `entities` fixture key with
// type `files` create real files of this area (pending, without bytes). They own metadata like
// any file, and core.get-file answers them.
import type { FastifyInstance } from 'fastify'
import type { SandboxEntity, SandboxEntityInput } from '../kit/area.js'
import type { FileRecord } from './store.js'
import { filesOf } from './service.js'

/**
 * A sandbox-made file: `pending` (no bytes yet), category `document`, `application/pdf`. Its
 * upload target is not issued (only core.create-file issues one), so it stays pending; it serves
 * as an owner of metadata and as a file the API can read.
 */
const record = (e: SandboxEntityInput): FileRecord => ({
  id: e.id,
  organizationId: e.organizationId,
  userId: e.userId,
  status: 'pending',
  category: 'document',
  contentType: 'application/pdf',
  size: null,
  createdAt: e.createdAt,
  uploadedAt: null
})

export const filesSandboxEntity: SandboxEntity = {
  segment: 'files',
  description: 'a file is a real one of the files area, `pending`, category `document`, `application/pdf`, that `GET /core/files/{fileId}` answers',
  async find (app: FastifyInstance, id: string) {
    const file = await filesOf(app).find(id)
    return file === undefined ? undefined : { organizationId: file.organizationId, userId: file.userId }
  },
  async create (app, entity) {
    return (await filesOf(app).create(record(entity), Number.MAX_SAFE_INTEGER)).ok
  },
  async fixtureRow (app, entity) {
    await filesOf(app).fixtureRow(record(entity))
  }
}
