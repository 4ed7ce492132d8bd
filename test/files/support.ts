// Shared setup of the files tests (test/api-setup.ts) and the multipart form a browser posts.

export { REQUEST_ID, setup, type Call, type Method, type Setup } from '../api-setup.js'

export interface Upload { url: string, formData: Record<string, string>, expiresAt: string }

/** Posts a multipart form to an upload target over the real port, as a browser or an SDK would. */
export async function postForm (url: string, fields: Record<string, string>, file?: { bytes: Buffer, type: string }): Promise<{ status: number, body: string }> {
  const form = new FormData()
  for (const [k, v] of Object.entries(fields)) form.append(k, v)
  if (file !== undefined) form.append('file', new Blob([new Uint8Array(file.bytes)], { type: file.type }), 'upload.bin')
  const res = await fetch(url, { method: 'POST', body: form })
  return { status: res.status, body: await res.text() }
}
