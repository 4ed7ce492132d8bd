// Address validation on crypto networks: the address is checked by a maintained validator
// (`multicoin-address-validator`, offline, main and test networks both accepted: this is a
// sandbox), the reference by the network's own rule (XRP destination tags, Stellar memos).
import addressValidator from 'multicoin-address-validator'
import type { AddressValidation } from '../../schemas/catalogue.js'
import type { NetworkEntry } from './data.js'

const MAX_DESTINATION_TAG = 4_294_967_295
const MAX_MEMO_BYTES = 28

type Failure = NonNullable<AddressValidation['error']>
const invalid = (error: Failure): AddressValidation => ({ isValid: false, error })

/** The validator's name for the network; undefined when the validator does not know it. */
function validatorOf (network: NetworkEntry): string | undefined {
  const name = network.validator ?? network.code
  return addressValidator.findCurrency(name) === null ? undefined : name
}

function addressIsValid (network: NetworkEntry, address: string): boolean {
  const name = validatorOf(network)
  // A network added by a fixture that the validator does not know: any address passes.
  if (name === undefined) return true
  try {
    return addressValidator.validate(address, name, { networkType: 'both' })
  } catch {
    return false
  }
}

function referenceProblem (network: NetworkEntry, reference: string): Failure | undefined {
  if (network.reference === undefined) {
    return { code: 'reference_invalid', message: 'The network does not support a reference', details: { rule: 'unsupported' } }
  }
  if (network.reference.type === 'destination-tag') {
    if (!/^\d{1,10}$/.test(reference) || Number(reference) > MAX_DESTINATION_TAG) {
      return {
        code: 'reference_invalid',
        message: `XRP destination tag must be an integer between 0 and ${MAX_DESTINATION_TAG}`,
        details: { rule: 'range', min: 0, max: MAX_DESTINATION_TAG }
      }
    }
  }
  if (network.reference.type === 'memo') {
    const bytes = Buffer.byteLength(reference, 'utf8')
    if (bytes > MAX_MEMO_BYTES) {
      return { code: 'reference_invalid', message: `Stellar memo must be ${MAX_MEMO_BYTES} bytes long`, details: { rule: 'byteLength', expected: MAX_MEMO_BYTES, actual: bytes } }
    }
  }
  return undefined
}

/**
 * Whether a transfer to `address` (and `reference`) on a crypto network can be sent. The
 * network's example address stands for a shared exchange address: on a network with references,
 * it needs one (`reference_missing`).
 */
export function validateAddress (network: NetworkEntry, address: string, reference?: string): AddressValidation {
  if (!addressIsValid(network, address)) return invalid({ code: 'address_invalid', message: 'The address is invalid' })
  if (reference !== undefined) {
    const problem = referenceProblem(network, reference)
    if (problem !== undefined) return invalid(problem)
  } else if (network.reference !== undefined && address === network.exampleAddress) {
    return invalid({ code: 'reference_missing', message: 'A reference is required for this address', details: { rule: 'required' } })
  }
  return { isValid: true }
}
