// Types of demo-history.js, for the test that runs it in process.
export interface DemoRequest {
  (method: string, path: string, init?: { body?: unknown, headers?: Record<string, string> }): Promise<{ status: number, json: any }>
}
export type DemoCall = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<any>
export function demoHistory (options: {
  request: DemoRequest
  deposit?: (deposit: { userId: string, accountId: string, asset: string, amount: string, call: DemoCall }) => Promise<void>
  commit?: (commit: { userId: string, quoteId: string, call: DemoCall, context: Record<string, string> }) => Promise<void>
  weeks?: number
  serviceName?: string
  clientId?: string
  clientSecret?: string
  adminToken?: string
  log?: (line: string) => void
}): Promise<{ userId: string, accounts: Record<string, string>, from: string, transactions: number }>
