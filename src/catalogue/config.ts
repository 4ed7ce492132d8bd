// The variables the catalogue area reads (`app.config.<key>`).
import { ConfigError, variable } from '../kit/config.js'

export const config = [
  variable({
    key: 'unsupportedCountries',
    name: 'UNSUPPORTED_COUNTRIES',
    default: 'CU,IR,KP,SY',
    keepsEmpty: true,
    description: 'ISO 3166-1 codes that carry every restriction scope in the catalogue: answered 409 `country_not_supported` (empty: none).',
    parse: raw => {
      const countries = (raw ?? '').trim()
      if (countries !== '' && !/^[A-Z]{2}(\s*,\s*[A-Z]{2})*$/.test(countries)) throw new ConfigError(`UNSUPPORTED_COUNTRIES must be comma-separated two-letter codes; got "${countries}"`)
      return countries === '' ? [] : countries.split(',').map(s => s.trim())
    }
  })
] as const
