// Numbered schema migrations, applied in order at start. Add a file and list it here; never edit
// one that has shipped.
import m001 from './001-core.js'
import m002 from './002-webhooks.js'
import m003 from './003-sandbox.js'
import m004 from './004-catalogue.js'

export interface Migration { version: number, name: string, sql: string }

export const migrations: Migration[] = [m001, m002, m003, m004]
