// The C allocator's setting the image runs with (the Dockerfile's `MALLOC_MMAP_THRESHOLD_`; see
// docs/behaviour.md, "A client secret's derivation"), read from the Dockerfile itself, so that
// `npm run replicas`, the bench's PostgreSQL replicas and the test of its effect run as the image
// does without a copy of the number.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/** `{ MALLOC_MMAP_THRESHOLD_ }` as the Dockerfile in `root` sets it. */
export function imageMallocEnv (root) {
  const setting = /^\s*MALLOC_MMAP_THRESHOLD_=(\d+)\s*\\?$/m.exec(readFileSync(join(root, 'Dockerfile'), 'utf8'))
  if (setting === null) throw new Error('the Dockerfile sets no MALLOC_MMAP_THRESHOLD_')
  return { MALLOC_MMAP_THRESHOLD_: setting[1] }
}
