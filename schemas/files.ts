// The files contract: creating a file and reading it (core.create-file, core.get-file), and the
// upload target and download links the sandbox serves for them.
import { Type, type Static } from 'typebox'
import { Timestamp, Uuid } from './common.js'
import { Metadata } from './metadata.js'
import { FILE_CATEGORIES } from './catalogue.js'

export const FileParams = Type.Object({
  fileId: Type.String({ format: 'uuid', description: 'The file id.' })
})

export const CreateFileRequest = Type.Object({
  category: Type.Enum(FILE_CATEGORIES, { description: 'The category of the file: its allowed content types and sizes are those of `GET /core/files/settings`.' }),
  contentType: Type.String({ maxLength: 100, description: 'The content type of the file: one of the category\'s `allowedContentTypes`.' }),
  metadata: Type.Optional({ ...Metadata, description: 'Initial metadata. Over 1024 characters, the file is still created and the answer reports `errors.metadata`.' })
}, {
  additionalProperties: false,
  examples: [{ category: 'image', contentType: 'image/png', metadata: { externalId: 123 } }]
})
export type CreateFileRequest = Static<typeof CreateFileRequest>

const fileFields = {
  id: Uuid,
  status: Type.Enum(['pending', 'uploaded'], { description: '`pending` until the bytes arrive through the upload target, then `uploaded`.' }),
  category: Type.String({ description: 'The category of the file.' }),
  contentType: Type.String({ description: 'The content type of the file.' })
}

export const FileUpload = Type.Object({
  url: Type.String({ format: 'uri', description: 'Where to POST the file: a `multipart/form-data` form with every `formData` field, then the file as the last part, named `file`.' }),
  formData: Type.Record(Type.String(), Type.String(), { description: 'The form fields to send as they are, before the file: `key`, `Content-Type`, `policy` and `signature`.' }),
  expiresAt: { ...Timestamp, description: 'When the upload target stops accepting the file (sandbox clock).' }
}, { description: 'The pre-signed upload target.' })

export const FileDownload = Type.Object({
  url: Type.String({ format: 'uri', description: 'A pre-signed URL that answers the file\'s bytes with its content type.' }),
  expiresAt: { ...Timestamp, description: 'When the download URL stops working (sandbox clock).' }
}, { description: 'The pre-signed download link; a new one with each read.' })

export const CreatedFile = Type.Object({ ...fileFields, upload: FileUpload }, { description: 'A file just created: pending, with its upload target.' })
export const StoredFile = Type.Object({ ...fileFields, download: Type.Optional(FileDownload) }, { description: 'A file; `download` appears once it is uploaded.' })

export const CreateFileResponse = Type.Object({
  file: CreatedFile,
  errors: Type.Optional(Type.Object({
    metadata: Type.Ref('ErrorBody')
  }, { description: 'Present only when the metadata could not be stored; the file was created without it.' }))
})

export const GetFileResponse = Type.Object({ file: StoredFile })

// ---- The upload target and download links (served by the sandbox, not API operations) ----

export const UploadParams = Type.Object({ fileId: Type.String({ description: 'The file id, as in the upload URL.' }) })

export const UploadForm = Type.Object({
  key: Type.String({ description: 'The file id, as given in `formData`.' }),
  'Content-Type': Type.String({ description: 'The file\'s content type, as given in `formData`.' }),
  policy: Type.String({ description: 'The signed policy, as given in `formData`.' }),
  signature: Type.String({ description: 'The policy\'s signature, as given in `formData`.' }),
  file: Type.String({ format: 'binary', description: 'The bytes: the last part of the form. Its own `Content-Type`, when not `application/octet-stream`, must be the file\'s.' })
}, {
  description: 'The form of `upload.formData`, then the file.',
  examples: [{ key: '6f1c2a0e-2b3d-4c5e-8f90-a1b2c3d4e5f6', 'Content-Type': 'image/png', policy: '<upload.formData.policy>', signature: '<upload.formData.signature>', file: '<the bytes of the file>' }]
})

export const DownloadQuery = Type.Object({
  expires: Type.String({ maxLength: 20, description: 'Unix time (seconds) after which the link is refused.' }),
  signature: Type.String({ maxLength: 128, description: 'The link\'s signature: any other value than the one issued is 403.' })
})
