// The upload target and download links over a real port on 127.0.0.1: a real multipart upload
// through the target core.create-file answers, the file settings' limits, expiry on the sandbox
// clock, tampered signatures, and the same bytes back with their content type.
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { bearer, build, fileDatabasePath, makeUser, accessToken, onBehalfOf } from '../helpers.js'
import { postForm, setup, type Upload } from './support.js'

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex')

/** Listens on a free port; URLs the app answers are rebased on it (they name the inject host). */
async function listen (t: Test, app: FastifyInstance): Promise<(url: string) => string> {
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  return url => url.replace(/^http:\/\/localhost:80/, base)
}

t.test('upload through the target, then download the same bytes with their content type', async t => {
  const { app, call } = await setup(t)
  const at = await listen(t, app)
  const created = (await call('POST', '/core/files', { payload: { category: 'image', contentType: 'image/png' } })).json().file
  const upload = created.upload as Upload
  const sent = await postForm(at(upload.url), upload.formData, { bytes: PNG, type: 'image/png' })
  t.same(sent, { status: 204, body: '' })

  const read = await call('GET', `/core/files/${created.id as string}`)
  t.equal(read.statusCode, 200)
  const { file } = read.json()
  t.match(file, { id: created.id, status: 'uploaded', category: 'image', contentType: 'image/png' })
  t.equal(file.download.expiresAt, new Date(Math.floor(app.clock.now() / 1000) * 1000 + 900_000).toISOString())
  t.match(file.download.url, /^http:\/\/localhost:80\/file-storage\/downloads\/[0-9a-f-]{36}\?expires=\d+&signature=[0-9a-f]{64}$/)

  const res = await fetch(at(file.download.url))
  t.equal(res.status, 200)
  t.equal(res.headers.get('content-type'), 'image/png')
  t.same(Buffer.from(await res.arrayBuffer()), PNG)

  const again = await postForm(at(upload.url), upload.formData, { bytes: PNG, type: 'image/png' })
  t.equal(again.status, 409)
  t.same(JSON.parse(again.body), { code: 'file_already_uploaded', message: 'The file has already been uploaded' })
})

t.test('the file settings\' limits: size and content type', async t => {
  const { app, call } = await setup(t)
  const at = await listen(t, app)
  const fresh = async (category = 'image', contentType = 'image/png'): Promise<Upload> =>
    (await call('POST', '/core/files', { payload: { category, contentType } })).json().file.upload

  // The limits are core.list-files-settings' own.
  const { maxFileSize } = (await call('GET', '/core/files/settings?category=image')).json().settings.image
  const big = await fresh()
  const tooLarge = await postForm(at(big.url), big.formData, { bytes: Buffer.alloc(maxFileSize + 1, 1), type: 'image/png' })
  t.equal(tooLarge.status, 413)
  t.same(JSON.parse(tooLarge.body), { code: 'content_too_large', message: 'The file size is greater than maximum size limit', details: { threshold: { unit: 'bytes', limit: maxFileSize } } })
  const exact = await postForm(at(big.url), big.formData, { bytes: Buffer.alloc(maxFileSize, 1), type: 'image/png' })
  t.equal(exact.status, 204, 'the maximum itself is accepted, with the same target')

  const empty = await fresh()
  const tooSmall = await postForm(at(empty.url), empty.formData, { bytes: Buffer.alloc(0), type: 'image/png' })
  t.equal(tooSmall.status, 400)
  t.same(JSON.parse(tooSmall.body), {
    code: 'request_invalid',
    message: 'The request has missing or invalid parameters',
    details: { context: 'body', violations: [{ property: 'file', rule: 'minSize', ruleParams: { limit: 1, unit: 'bytes' } }] }
  })

  const typed = await fresh()
  const wrongPart = await postForm(at(typed.url), typed.formData, { bytes: PNG, type: 'image/jpeg' })
  t.equal(wrongPart.status, 415)
  t.same(JSON.parse(wrongPart.body), { code: 'media_type_unsupported', message: 'The file content type is not the one the upload target was issued for', details: { contentType: 'image/jpeg' } })
  const wrongField = await postForm(at(typed.url), { ...typed.formData, 'Content-Type': 'application/zip' }, { bytes: PNG, type: 'application/octet-stream' })
  t.equal(wrongField.status, 415)
  t.same(JSON.parse(wrongField.body).details, { contentType: 'application/zip' })
  const octets = await postForm(at(typed.url), typed.formData, { bytes: PNG, type: 'application/octet-stream' })
  t.equal(octets.status, 204, 'an untyped part takes the declared type')
})

t.test('a bad form: missing fields, no file, not multipart', async t => {
  const { app, call } = await setup(t)
  const at = await listen(t, app)
  const upload = (await call('POST', '/core/files', { payload: { category: 'document', contentType: 'application/pdf' } })).json().file.upload as Upload
  const { policy: _policy, signature: _signature, ...partial } = upload.formData
  const missing = await postForm(at(upload.url), partial, { bytes: Buffer.from('%PDF-1.4'), type: 'application/pdf' })
  t.equal(missing.status, 400)
  t.same(JSON.parse(missing.body), {
    code: 'request_invalid',
    message: 'The request has missing or invalid parameters',
    details: { context: 'body', violations: [{ property: 'policy', rule: 'required' }, { property: 'signature', rule: 'required' }] }
  })
  const noFile = await postForm(at(upload.url), upload.formData)
  t.equal(noFile.status, 400)
  t.same(JSON.parse(noFile.body).details, { context: 'body', violations: [{ property: 'file', rule: 'required' }] })
  const json = await fetch(at(upload.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(upload.formData) })
  t.equal(json.status, 415)
  t.same(await json.json(), { code: 'media_type_unsupported', message: 'The request content type is not supported', details: { contentType: 'multipart/form-data' } })
  const ok = await postForm(at(upload.url), upload.formData, { bytes: Buffer.from('%PDF-1.4'), type: 'application/pdf' })
  t.equal(ok.status, 204, 'the target still works after refused attempts')
})

t.test('an expired target and a tampered signature are refused with 403', async t => {
  const { app, call, renewToken } = await setup(t)
  const at = await listen(t, app)
  const upload = (await call('POST', '/core/files', { payload: { category: 'image', contentType: 'image/png' } })).json().file.upload as Upload
  const signatureInvalid = { code: 'signature_invalid', message: 'The upload signature does not match the request' }

  const tampered = await postForm(at(upload.url), { ...upload.formData, signature: upload.formData.signature.replace(/^./, c => c === 'a' ? 'b' : 'a') }, { bytes: PNG, type: 'image/png' })
  t.equal(tampered.status, 403)
  t.same(JSON.parse(tampered.body), signatureInvalid)
  const policy = JSON.parse(Buffer.from(upload.formData.policy, 'base64url').toString())
  const longer = Buffer.from(JSON.stringify({ ...policy, expiresAt: policy.expiresAt + 86_400_000 })).toString('base64url')
  const forged = await postForm(at(upload.url), { ...upload.formData, policy: longer }, { bytes: PNG, type: 'image/png' })
  t.equal(forged.status, 403)
  t.same(JSON.parse(forged.body), signatureInvalid)
  const other = (await call('POST', '/core/files', { payload: { category: 'image', contentType: 'image/png' } })).json().file.upload as Upload
  const elsewhere = await postForm(at(other.url), upload.formData, { bytes: PNG, type: 'image/png' })
  t.equal(elsewhere.status, 403, 'a form is for its own file only')
  t.same(JSON.parse(elsewhere.body), signatureInvalid)

  app.clock.advance(901)
  await renewToken()
  const late = await postForm(at(upload.url), upload.formData, { bytes: PNG, type: 'image/png' })
  t.equal(late.status, 403)
  t.same(JSON.parse(late.body), { code: 'upload_expired', message: 'The upload target has expired', details: { expiresAt: upload.expiresAt } })
  t.equal((await call('GET', `/core/files/${upload.formData.key}`)).json().file.status, 'pending')
})

t.test('download links expire, refuse tampering, and die with their file', async t => {
  const { app, call, renewToken } = await setup(t)
  const at = await listen(t, app)
  const upload = (await call('POST', '/core/files', { payload: { category: 'video', contentType: 'video/mp4' } })).json().file.upload as Upload
  t.equal((await postForm(at(upload.url), upload.formData, { bytes: Buffer.from('mp4'), type: 'video/mp4' })).status, 204)
  const { download } = (await call('GET', `/core/files/${upload.formData.key}`)).json().file

  const url = new URL(at(download.url))
  url.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600))
  const tampered = await fetch(url)
  t.equal(tampered.status, 403)
  t.same(await tampered.json(), { code: 'signature_invalid', message: 'The download signature does not match the request' })
  const unsigned = await fetch(at(download.url).replace(/&signature=.*$/, ''))
  t.equal(unsigned.status, 400)
  t.match(await unsigned.json(), { code: 'request_invalid', details: { context: 'query' } })

  app.clock.advance(901)
  await renewToken()
  const late = await fetch(at(download.url))
  t.equal(late.status, 403)
  t.same(await late.json(), { code: 'download_expired', message: 'The download link has expired', details: { expiresAt: download.expiresAt } })
  const fresh = (await call('GET', `/core/files/${upload.formData.key}`)).json().file.download
  t.equal((await fetch(at(fresh.url))).status, 200, 'a new read issues a new link')

  t.equal((await call('DELETE', '/core/users/me', { payload: { review: { reason: 'other' } } })).statusCode, 204)
  const gone = await fetch(at(fresh.url))
  t.equal(gone.status, 404)
  t.same(await gone.json(), { code: 'entity_not_found', message: 'The file cannot be found', details: { entity: 'file' } })
})

t.test('the bytes, the signing key and issued targets survive a restart', async t => {
  const databasePath = fileDatabasePath(t)
  const first = await build(t, { databasePath })
  const user = await makeUser(first)
  const headers = { ...bearer(await accessToken(first)), ...onBehalfOf(user.id) }
  const created = (await first.inject({ method: 'POST', url: '/core/files', headers, payload: { category: 'document', contentType: 'application/pdf' } })).json().file
  await first.close()

  const second = await build(t, { databasePath })
  const at = await listen(t, second)
  t.equal((await postForm(at(created.upload.url), created.upload.formData, { bytes: Buffer.from('%PDF-1.7 restart'), type: 'application/pdf' })).status, 204, 'a target issued before the restart')
  const again = { ...bearer(await accessToken(second)), ...onBehalfOf(user.id) }
  const { download } = (await second.inject({ method: 'GET', url: `/core/files/${created.id as string}`, headers: again })).json().file
  await second.close()

  const third = await build(t, { databasePath })
  const at3 = await listen(t, third)
  const res = await fetch(at3(download.url))
  t.equal(res.status, 200, 'a link issued before the restart')
  t.equal(res.headers.get('content-type'), 'application/pdf')
  t.equal(await res.text(), '%PDF-1.7 restart')
})
