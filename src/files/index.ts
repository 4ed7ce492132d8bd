// The files area: files of a user (core.create-file, core.get-file), the upload target and the
// download links this server serves for them, and files as owners of metadata.
import type { FastifyInstance } from 'fastify'
import { defineArea } from '../kit/area.js'
import { operation } from '../kit/operation.js'
import { publicBase } from '../http/pagination.js'
import { UserContextHeaders } from '../../schemas/headers.js'
import { CreateFileRequest, CreateFileResponse, FileParams, GetFileResponse } from '../../schemas/files.js'
import { migrations } from './migrations.js'
import { MAX_FILES_PER_USER, createFile, filesOf, getFile } from './service.js'
import transferRoutes, { TRANSFER_TAG } from './transfer.js'
import { filesSandboxEntity } from './sandbox.js'

async function filesRoutes (app: FastifyInstance): Promise<void> {
  const headers = UserContextHeaders(app.config.serviceName)
  const subjects = ['user:business', 'user:individual'] as const

  operation(app, {
    id: 'createFile',
    method: 'POST',
    url: '/core/files',
    tag: 'Files',
    scopes: ['core.files:create'],
    subjects,
    summary: 'Create a file',
    description: 'Creates a `pending` file of the acting user and answers its pre-signed upload target (`upload`): POST the bytes there as ' +
        '`multipart/form-data` with `upload.formData` (see `POST /file-storage/uploads/{fileId}`) before `upload.expiresAt`, the category\'s ' +
        '`expiresIn` from now on the sandbox clock; the file then reads `uploaded`. `contentType` must be one of the category\'s `allowedContentTypes` ' +
        `(\`GET /core/files/settings\`), else 409 \`file_content_type_not_allowed\`. A user holds at most ${MAX_FILES_PER_USER} files (pending or uploaded); ` +
        'the next is 409 `max_files_limit_exceeded`. `metadata` over 1024 characters does not stop the creation: the file is created without metadata ' +
        'and `errors.metadata` holds the 413 body the metadata operations would answer.',
    headers,
    body: CreateFileRequest,
    responses: {
      201: { description: 'Created, pending, with its upload target; `errors` appears only when the metadata could not be stored.', ...CreateFileResponse },
      404: '`entity_not_found` (`details.entity: "user"`): the acting user does not exist.',
      409: '`file_content_type_not_allowed` (the category does not allow the content type) or `max_files_limit_exceeded`.',
      413: '`content_too_large`: the body is over the server\'s body limit.',
      415: '`media_type_unsupported`: the body is not `application/json`.'
    }
  }, async (request, reply) => {
    const { organizationId, userId } = request.auth
    return reply.code(201).send(await createFile(app, organizationId, userId, request.body, publicBase(app.config.publicUrl, request)))
  })

  operation(app, {
    id: 'getFile',
    method: 'GET',
    url: '/core/files/:fileId',
    tag: 'Files',
    scopes: ['core.files:read'],
    subjects,
    summary: 'Get a file',
    description: 'A file of the acting user. Once uploaded it carries `download`: a pre-signed link to its bytes, issued anew on each read and ' +
        'valid for the category\'s `expiresIn` (sandbox clock). Another user\'s file, or another organization\'s, is 404.',
    params: FileParams,
    headers,
    responses: {
      200: { description: 'The file.', ...GetFileResponse },
      404: '`entity_not_found` (`details.entity: "file"`): no such file of the acting user; (`"user"`) the acting user does not exist.'
    }
  }, async (request) => {
    const { organizationId, userId } = request.auth
    return await getFile(app, organizationId, userId, request.params.fileId, publicBase(app.config.publicUrl, request))
  })

  await app.register(transferRoutes)
}

export default defineArea({
  name: 'files',
  tags: [{ name: TRANSFER_TAG, description: 'The upload targets and download links of files, served by the sandbox in place of an object store: not API operations.' }],
  migrations,
  metadataEntities: [{
    segment: 'files',
    name: 'file',
    param: 'fileId',
    title: 'file',
    operation: 'File',
    ownerOf: async (app, organizationId, id) => (await filesOf(app).get(organizationId, id))?.userId
  }],
  sandboxEntities: [filesSandboxEntity],
  // A deleted user's files go with them, their bytes and metadata too.
  removeUser: app => {
    const files = filesOf(app)
    return async (organizationId, userId) => { await files.removeUserFiles(organizationId, userId) }
  },
  plugin: filesRoutes
})
