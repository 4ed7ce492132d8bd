// The catalogue the sandbox starts with: assets (with what the price model needs to price them),
// networks, rails, terms of service and file settings. Fixtures add entries or change these.
import type { Asset, FileCategory, Network, Rail, TermsOfService } from '../../schemas/catalogue.js'

/** An asset as the catalogue keeps it: the API's fields, and what the price model needs. */
export interface AssetEntry extends Omit<Asset, 'cooldowns'> {
  /** The USD mid price the model's curve moves around; absent: the asset has no rates. */
  usdPrice?: string
  /** How far the curve moves the price, as the largest change of its logarithm (0.3: about ±35%). */
  volatility?: number
  /** Units in circulation, for the `market-cap` sort. */
  supply?: string
}

const ALL: Asset['features'] = ['buy', 'deposit', 'sell', 'transfer', 'withdraw']

// Volatility by kind: fiat currencies drift a few percent a year, stablecoins hardly move, other
// crypto assets swing widely.
const FIAT = 0.03
const STABLE = 0.002
const CRYPTO = 0.35

export const ASSETS: AssetEntry[] = [
  { code: 'USD', name: 'US Dollar', type: 'fiat', symbol: '$', decimals: 2, features: ALL, usdPrice: '1', volatility: 0 },
  { code: 'EUR', name: 'Euro', type: 'fiat', symbol: '€', decimals: 2, features: ALL, usdPrice: '1.08', volatility: FIAT },
  { code: 'GBP', name: 'British Pound', type: 'fiat', symbol: '£', decimals: 2, features: ALL, usdPrice: '1.27', volatility: FIAT },
  { code: 'BTC', name: 'Bitcoin', type: 'crypto', symbol: '₿', decimals: 8, features: ALL, usdPrice: '62000', volatility: CRYPTO, supply: '19700000' },
  { code: 'ETH', name: 'Ether', type: 'crypto', symbol: 'Ξ', decimals: 18, features: ALL, usdPrice: '3100', volatility: CRYPTO, supply: '120000000' },
  { code: 'USDC', name: 'USDC', type: 'crypto', symbol: '$', decimals: 6, features: ALL, usdPrice: '1', volatility: STABLE, supply: '35000000000' },
  { code: 'USDT', name: 'Tether', type: 'crypto', symbol: '₮', decimals: 6, features: ALL, usdPrice: '1', volatility: STABLE, supply: '110000000000' },
  { code: 'SOL', name: 'Solana', type: 'crypto', symbol: '◎', decimals: 9, features: ALL, usdPrice: '145', volatility: CRYPTO, supply: '460000000' },
  { code: 'XRP', name: 'XRP', type: 'crypto', decimals: 6, features: ALL, usdPrice: '0.55', volatility: CRYPTO, supply: '55000000000' },
  { code: 'LTC', name: 'Litecoin', type: 'crypto', symbol: 'Ł', decimals: 8, features: ALL, usdPrice: '80', volatility: CRYPTO, supply: '75000000' },
  { code: 'DOGE', name: 'Dogecoin', type: 'crypto', symbol: 'Ð', decimals: 8, features: ALL, usdPrice: '0.14', volatility: CRYPTO, supply: '145000000000' },
  { code: 'XLM', name: 'Stellar Lumens', type: 'crypto', decimals: 7, features: ALL, usdPrice: '0.11', volatility: CRYPTO, supply: '29000000000' }
]

/** A network as the catalogue keeps it: the API's fields, and the address validator's name for it. */
export interface NetworkEntry extends Network {
  /** The currency code the address validator knows the network by (crypto networks only). */
  validator?: string
}

export const NETWORKS: NetworkEntry[] = [
  {
    code: 'bitcoin',
    name: 'Bitcoin',
    type: 'crypto',
    validator: 'btc',
    exampleAddress: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx',
    explorer: { addressUrl: 'https://mempool.space/testnet/address/<hash>', txUrl: 'https://mempool.space/testnet/tx/<hash>' }
  },
  {
    code: 'ethereum',
    name: 'Ethereum',
    type: 'crypto',
    validator: 'eth',
    exampleAddress: '0x742d35Cc6634C0532925a3b844Bc454e4438f44e',
    explorer: { addressUrl: 'https://sepolia.etherscan.io/address/<hash>', txUrl: 'https://sepolia.etherscan.io/tx/<hash>' }
  },
  {
    code: 'solana',
    name: 'Solana',
    type: 'crypto',
    validator: 'sol',
    exampleAddress: '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV',
    explorer: { addressUrl: 'https://explorer.solana.com/address/<hash>?cluster=devnet', txUrl: 'https://explorer.solana.com/tx/<hash>?cluster=devnet' }
  },
  {
    code: 'xrp-ledger',
    name: 'XRP Ledger',
    type: 'crypto',
    validator: 'xrp',
    exampleAddress: 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh',
    reference: { type: 'destination-tag' },
    explorer: { addressUrl: 'https://testnet.xrpl.org/accounts/<hash>', txUrl: 'https://testnet.xrpl.org/transactions/<hash>' }
  },
  {
    code: 'litecoin',
    name: 'Litecoin',
    type: 'crypto',
    validator: 'ltc',
    exampleAddress: 'LVg2kJoFNg45Nbpy53h7Fe1wKyeXVRhMH9',
    explorer: { addressUrl: 'https://litecoinspace.org/testnet/address/<hash>', txUrl: 'https://litecoinspace.org/testnet/tx/<hash>' }
  },
  {
    code: 'dogecoin',
    name: 'Dogecoin',
    type: 'crypto',
    validator: 'doge',
    exampleAddress: 'DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L',
    explorer: { addressUrl: 'https://blockexplorer.one/dogecoin/testnet/address/<hash>', txUrl: 'https://blockexplorer.one/dogecoin/testnet/tx/<hash>' }
  },
  {
    code: 'stellar',
    name: 'Stellar',
    type: 'crypto',
    validator: 'xlm',
    exampleAddress: 'GAHK7EEG2WWHVKDNT4CEQFZGKF2LGDSW2IVM4S5DP42RBW3K6BTODB4A',
    reference: { type: 'memo' },
    explorer: { addressUrl: 'https://stellar.expert/explorer/testnet/account/<hash>', txUrl: 'https://stellar.expert/explorer/testnet/tx/<hash>' }
  },
  { code: 'visa', name: 'Visa', type: 'card' },
  { code: 'mastercard', name: 'Mastercard', type: 'card' },
  { code: 'ach', name: 'Automated Clearing House', type: 'bank' },
  { code: 'fednow', name: 'FedNow', type: 'bank' },
  { code: 'rtp', name: 'Real-Time Payments', type: 'bank' },
  { code: 'wire', name: 'Wire transfer', type: 'bank' },
  { code: 'sepa', name: 'Single Euro Payments Area', type: 'bank', reference: { type: 'payment-reference' } },
  { code: 'fps', name: 'Faster Payments', type: 'bank', reference: { type: 'payment-reference' } },
  { code: 'paypal', name: 'PayPal', type: 'apm' },
  { code: 'venmo', name: 'Venmo', type: 'apm' },
  { code: 'apple-pay', name: 'Apple Pay', type: 'apm' }
]

const BOTH: Rail['features'] = ['deposit', 'withdraw']
const crypto = (network: string, asset: string, decimals: number, contractAddress?: string): Rail =>
  contractAddress === undefined
    ? { type: 'crypto', network, method: 'crypto-transaction', asset, decimals, features: BOTH }
    : { type: 'crypto', network, method: 'crypto-transaction', asset, decimals, features: BOTH, contractAddress }
const card = (network: string, method: 'debit-card' | 'credit-card', asset: string): Rail =>
  ({ type: 'card', network, method, asset, decimals: 2, features: method === 'debit-card' ? BOTH : ['deposit'] })
const bank = (network: string, asset: string, defaultOnly = false): Rail => defaultOnly
  ? { type: 'bank', network, method: 'bank-transfer', asset, decimals: 2, features: BOTH, constraints: [{ rule: 'allowed-deposit-accounts', allowed: 'default-only' }] }
  : { type: 'bank', network, method: 'bank-transfer', asset, decimals: 2, features: BOTH }
const apm = (network: string, method: 'paypal' | 'venmo' | 'apple-pay'): Rail =>
  ({ type: 'apm', network, method, asset: 'USD', decimals: 2, features: method === 'apple-pay' ? ['deposit'] : BOTH })

export const RAILS: Rail[] = [
  crypto('bitcoin', 'BTC', 8),
  crypto('ethereum', 'ETH', 18),
  crypto('ethereum', 'USDC', 6, '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238'),
  crypto('ethereum', 'USDT', 6, '0x7169D38820dfd117C3FA1f22a697dBA58d90BA06'),
  crypto('solana', 'SOL', 9),
  crypto('solana', 'USDC', 6, '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU'),
  crypto('xrp-ledger', 'XRP', 6),
  crypto('litecoin', 'LTC', 8),
  crypto('dogecoin', 'DOGE', 8),
  crypto('stellar', 'XLM', 7),
  card('visa', 'debit-card', 'USD'),
  card('visa', 'debit-card', 'EUR'),
  card('visa', 'debit-card', 'GBP'),
  card('visa', 'credit-card', 'USD'),
  card('mastercard', 'debit-card', 'USD'),
  card('mastercard', 'debit-card', 'EUR'),
  card('mastercard', 'debit-card', 'GBP'),
  card('mastercard', 'credit-card', 'USD'),
  bank('ach', 'USD', true),
  bank('fednow', 'USD'),
  bank('rtp', 'USD'),
  bank('wire', 'USD'),
  bank('sepa', 'EUR'),
  bank('fps', 'GBP'),
  apm('paypal', 'paypal'),
  apm('venmo', 'venmo'),
  apm('apple-pay', 'apple-pay')
]

// The European countries whose users the Lithuanian entity serves (Portugal has its own terms).
const EEA = ['AT', 'BE', 'BG', 'HR', 'CY', 'CZ', 'DK', 'EE', 'FI', 'FR', 'DE', 'GR', 'HU', 'IS', 'IE', 'IT', 'LV', 'LI', 'LT', 'LU', 'MT', 'NL', 'NO', 'PL', 'RO', 'SK', 'SI', 'ES', 'SE']

/**
 * The terms of service. General terms apply by country of residence: the US, UK and Portuguese
 * ones to their country, the Lithuanian ones to the rest of the EEA, and the Bahamian ones
 * (no `countries`) to every other country.
 */
export const TERMS_OF_SERVICE: TermsOfService[] = [
  { code: 'general-us-hq', type: 'general', countries: ['US'], modifiedAt: '2025-01-15T00:00:00.000Z' },
  { code: 'general-gb-fca', type: 'general', countries: ['GB'], modifiedAt: '2025-02-01T00:00:00.000Z' },
  { code: 'general-pt-bop', type: 'general', countries: ['PT'], modifiedAt: '2025-02-01T00:00:00.000Z' },
  { code: 'general-lt-fcs', type: 'general', countries: EEA, modifiedAt: '2025-03-01T00:00:00.000Z' },
  { code: 'general-bs-scb', type: 'general', modifiedAt: '2024-11-01T00:00:00.000Z' },
  { code: 'unique-account-number-viban', type: 'unique-account-number', countries: ['GB', 'PT'], userTypes: ['individual'], modifiedAt: '2024-12-01T00:00:00.000Z' }
]

const MB = 1_000_000
/** Upload rules by file category; an upload link lives 15 minutes. */
export const FILE_SETTINGS: Record<FileCategory, { allowedContentTypes: string[], minFileSize: number, maxFileSize: number, expiresIn: number }> = {
  document: { allowedContentTypes: ['application/pdf', 'image/jpeg', 'image/png'], minFileSize: 1, maxFileSize: 25 * MB, expiresIn: 900 },
  image: { allowedContentTypes: ['image/jpeg', 'image/png'], minFileSize: 1, maxFileSize: 15 * MB, expiresIn: 900 },
  video: { allowedContentTypes: ['video/mp4', 'video/mpeg'], minFileSize: 1, maxFileSize: 100 * MB, expiresIn: 900 }
}

export const FILE_SETTINGS_ORDER: FileCategory[] = ['document', 'image', 'video']
