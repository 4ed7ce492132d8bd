// SHA-256 in one call. crypto.hash (Node 20.12) makes no Hash object, as createHash does, which
// for the short inputs of the request paths (tokens, secrets, metadata) costs most of the hash.
import { hash } from 'node:crypto'

export const sha256Hex = (data: string): string => hash('sha256', data, 'hex')
export const sha256 = (data: string): Buffer => hash('sha256', data, 'buffer')
