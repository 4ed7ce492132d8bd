// The API, top to bottom: each area is one folder and one encapsulated plugin. Adding an area of
// the Core API means adding its folder and one line here.
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import authArea from './auth/routes.js'
import usersArea from './users/index.js'
import metadataArea from './metadata/index.js'
import kycSharingArea from './kyc-sharing/index.js'
import catalogueArea from './catalogue/index.js'
import webhooksArea from './webhooks/index.js'
import sandboxArea from './sandbox/index.js'

export interface Area {
  name: string
  plugin: FastifyPluginAsync
}

export const areas = (_app: FastifyInstance): Area[] => [
  { name: 'auth', plugin: authArea },
  { name: 'users', plugin: usersArea },
  { name: 'metadata', plugin: metadataArea },
  { name: 'kyc-sharing', plugin: kycSharingArea },
  { name: 'catalogue', plugin: catalogueArea },
  { name: 'webhooks', plugin: webhooksArea },
  { name: 'sandbox', plugin: sandboxArea }
]
