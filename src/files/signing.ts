// Signatures of the upload targets and download links. One HMAC-SHA256 key per database, kept in
// the settings table (a reset keeps it, like the token signing key), so a target or link issued
// before a restart still works after it.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance } from 'fastify'

const SETTING = 'files.signing-key'

export interface UploadPolicy {
  fileId: string
  organizationId: string
  contentType: string
  /** Unix milliseconds (sandbox clock) after which the target refuses the upload. */
  expiresAt: number
}

export interface Signer {
  /** The `policy` and `signature` form fields of an upload target. */
  signUpload: (policy: UploadPolicy) => { policy: string, signature: string }
  /** The policy of a form whose signature is this key's; undefined when tampered with. */
  verifyUpload: (policy: string, signature: string) => UploadPolicy | undefined
  /** The signature of a download link. */
  signDownload: (organizationId: string, fileId: string, expires: number) => string
  verifyDownload: (organizationId: string, fileId: string, expires: string, signature: string) => boolean
}

const signers = new WeakMap<FastifyInstance, Signer>()

function equal (a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/** The app's signer, its key read (or made) once. */
export async function signerOf (app: FastifyInstance): Promise<Signer> {
  const known = signers.get(app)
  if (known !== undefined) return known
  const key = Buffer.from(await app.storage.settings.getOrCreate(SETTING, randomBytes(32).toString('hex')), 'hex')
  const mac = (purpose: string, text: string): string => createHmac('sha256', key).update(`${purpose}\n${text}`).digest('hex')
  const signer: Signer = {
    signUpload (p) {
      const policy = Buffer.from(JSON.stringify({ fileId: p.fileId, organizationId: p.organizationId, contentType: p.contentType, expiresAt: p.expiresAt })).toString('base64url')
      return { policy, signature: mac('upload', policy) }
    },
    verifyUpload (policy, signature) {
      if (!equal(mac('upload', policy), signature)) return undefined
      try {
        const p = JSON.parse(Buffer.from(policy, 'base64url').toString('utf8')) as UploadPolicy
        return typeof p.fileId === 'string' && typeof p.organizationId === 'string' && typeof p.contentType === 'string' && typeof p.expiresAt === 'number' ? p : undefined
      } catch {
        return undefined
      }
    },
    signDownload: (organizationId, fileId, expires) => mac('download', `${organizationId}\n${fileId}\n${expires}`),
    verifyDownload: (organizationId, fileId, expires, signature) => equal(mac('download', `${organizationId}\n${fileId}\n${expires}`), signature)
  }
  signers.set(app, signer)
  return signer
}
