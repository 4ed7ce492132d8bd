// Types of image-env.js, for the tests that import it.
export function imageMallocEnv (root: string): { MALLOC_MMAP_THRESHOLD_: string }
