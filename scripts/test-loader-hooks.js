// The module hook of scripts/test-loader.js for a bundled test file: its URL resolves to its
// bundle's. Nothing else is changed.
let entry
let bundle

export function initialize (data) {
  ({ entry, bundle } = data)
}

export async function resolve (specifier, context, nextResolve) {
  if (specifier === entry) return { url: bundle, format: 'module', shortCircuit: true }
  return await nextResolve(specifier, context)
}
