// The API, top to bottom: each area is one folder and one encapsulated plugin. Adding an area of
// the Core API means adding its folder and one line here.
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import authRoutes from './auth/routes.js'
import health from './sandbox/health.js'

export interface Area {
  name: string
  plugin: FastifyPluginAsync
}

export const areas = (_app: FastifyInstance): Area[] => [
  { name: 'sandbox-health', plugin: health },
  { name: 'auth', plugin: authRoutes }
]
