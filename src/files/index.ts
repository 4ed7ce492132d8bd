// The files area: files of a user (core.create-file, core.get-file), the upload target and the
// download links this server serves for them.
import type { FastifyInstance } from 'fastify'
import { defineArea } from '../kit/area.js'
import { migrations } from './migrations.js'

async function filesRoutes (_app: FastifyInstance): Promise<void> {}

export default defineArea({
  name: 'files',
  migrations,
  plugin: filesRoutes
})
