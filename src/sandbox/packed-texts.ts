// The request log's entries as UTF-8, packed one after another in off-heap pages, each under the
// number of its slot in the ring (request-log.ts).
//
// Why packed: the ring gave each entry a fixed 4 KiB slot, whatever its size. A GET's entry is
// under 1 KiB, so three quarters of the log's memory (4 MB at the default REQUEST_LOG_SIZE of 1000,
// 40 MB at 10 000) held nothing. Packed, the log takes about what its entries take.
// Why pages: entries are written in the order of the ring and dropped in the same order (the oldest
// slot is the next one overwritten), so the oldest page empties first and is then used again.
// The pages in use are about the entries' bytes over the page size, plus one being filled and at
// most one partly emptied. An entry larger than a quarter of a page is kept as a string instead.
//
// Written by hand: the job is a ring of byte ranges with these few operations, and no maintained
// package does it.

const PAGE = 64 * 1024
/** Above this many bytes an entry is a string on the heap, so a page never holds few, large entries. */
const LARGEST_PACKED = PAGE / 4
/** Emptied pages kept for the next ones, so a full ring allocates nothing in steady state. */
const SPARE_PAGES = 2

interface Page {
  readonly bytes: Buffer
  /** Entries in the page that no later `set` or `clear` dropped. */
  live: number
}

export class PackedTexts {
  /** The page of each slot's entry; undefined when the slot is empty or its entry is a string. */
  readonly #pageOf: Array<Page | undefined>
  readonly #offsets: Int32Array
  /** Bytes of each slot's entry; -1 when it is a string in #large, 0 when the slot is empty. */
  readonly #lengths: Int32Array
  readonly #large = new Map<number, string>()
  #spare: Page[] = []
  /** The page being filled, and how many of its bytes are used. */
  #tail: Page | undefined
  #used = 0
  #pages = 0

  constructor (readonly capacity: number) {
    this.#pageOf = new Array<Page | undefined>(capacity).fill(undefined)
    this.#offsets = new Int32Array(capacity)
    this.#lengths = new Int32Array(capacity)
  }

  /** Pages allocated and not yet let go (in use or spare): the memory the entries take is about this times 64 KiB. */
  get pages (): number { return this.#pages }

  /** Keeps `text` in slot `index`, in place of what the slot held. */
  set (index: number, text: string): void {
    this.#drop(index)
    if (text === '') return
    // A UTF-16 code unit is at most 3 bytes of UTF-8: the exact length is counted only near a limit.
    if (text.length * 3 > LARGEST_PACKED && Buffer.byteLength(text) > LARGEST_PACKED) {
      this.#large.set(index, text)
      this.#lengths[index] = -1
      return
    }
    const room = this.#tail === undefined ? 0 : PAGE - this.#used
    if (text.length * 3 > room && (text.length > room || Buffer.byteLength(text) > room)) this.#nextPage()
    const page = this.#tail!
    const length = page.bytes.write(text, this.#used, 'utf8')
    this.#pageOf[index] = page
    this.#offsets[index] = this.#used
    this.#lengths[index] = length
    this.#used += length
    page.live++
  }

  /**
   * The text in slot `index` ('' when the slot is empty). A packed text went through UTF-8: a lone
   * surrogate comes back as U+FFFD, one code unit as before, so the text's length is the same.
   */
  get (index: number): string {
    const length = this.#lengths[index]
    if (length < 0) return this.#large.get(index)!
    const page = this.#pageOf[index]
    if (page === undefined) return ''
    const start = this.#offsets[index]
    return page.bytes.toString('utf8', start, start + length)
  }

  /** Empties every slot and lets every page go. */
  clear (): void {
    this.#pageOf.fill(undefined)
    this.#lengths.fill(0)
    this.#large.clear()
    this.#spare = []
    this.#tail = undefined
    this.#used = 0
    this.#pages = 0
  }

  #drop (index: number): void {
    if (this.#lengths[index] < 0) this.#large.delete(index)
    this.#lengths[index] = 0
    const page = this.#pageOf[index]
    if (page === undefined) return
    this.#pageOf[index] = undefined
    if (--page.live > 0 || page === this.#tail) return
    // Emptied: kept for a later page, or let go (the garbage collector frees its memory).
    if (this.#spare.length < SPARE_PAGES) this.#spare.push(page)
    else this.#pages--
  }

  #nextPage (): void {
    const tail = this.#tail
    if (tail !== undefined && tail.live === 0) {
      // Every entry written to it is gone already: fill it again from the start.
      this.#used = 0
      return
    }
    let page = this.#spare.pop()
    if (page === undefined) {
      page = { bytes: Buffer.allocUnsafeSlow(PAGE), live: 0 }
      this.#pages++
    }
    this.#tail = page
    this.#used = 0
  }
}
