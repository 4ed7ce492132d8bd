// Numbered schema migrations, applied in order at start. Add a file and list it here; never edit
// one that has shipped.
import m001 from './001-core.js'

export interface Migration { version: number, name: string, sql: string }

export const migrations: Migration[] = [m001]
