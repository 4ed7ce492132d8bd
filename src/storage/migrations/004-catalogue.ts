import { catalogueMigration } from '../../catalogue/store.js'

export default { version: 4, ...catalogueMigration }
