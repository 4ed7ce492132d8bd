// The address validator ships no types: the part of its API the catalogue uses.
declare module 'multicoin-address-validator' {
  interface Options { networkType?: 'prod' | 'testnet' | 'both', chainType?: string }
  const validator: {
    validate: (address: string, currency: string, options?: Options) => boolean
    findCurrency: (nameOrSymbol: string) => { name: string, symbol: string } | null
  }
  export default validator
}
