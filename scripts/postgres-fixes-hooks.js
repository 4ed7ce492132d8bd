// The module hook of scripts/postgres-fixes.js: postgres.js's fixed modules (queue, connection,
// index), as ES modules (the package's `import` build, which the sources load), get the bundle's
// fixes as they load.
import { fileURLToPath } from 'node:url'
import { POSTGRES_FIXES } from './postgres-fixes-list.js'

export async function load (url, context, nextLoad) {
  const loaded = await nextLoad(url, context)
  if (!url.startsWith('file:') || !url.includes('/node_modules/postgres/') || loaded.source == null) return loaded
  const path = fileURLToPath(url)
  const fix = POSTGRES_FIXES.find(({ module }) => module.test(path))
  if (fix === undefined) return loaded
  const source = typeof loaded.source === 'string' ? loaded.source : Buffer.from(loaded.source).toString('utf8')
  return { ...loaded, source: fix.patch(source) }
}
