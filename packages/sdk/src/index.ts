export {
  createClient,
  DEFAULT_BASE_URL,
  PrintApiClient,
  type ClientOptions,
  type CreatedWebhookEndpoint,
  type ListOrdersQuery,
  type ListProductsQuery,
  type Me,
  type Order,
  type OrderResult,
  type Page,
  type PlaceOrderInput,
  type Product,
  type ProductDetail,
  type Quote,
  type QuoteInput,
  type ResellerProduct,
  type ResellerProductInput,
  type ResellerProductPatch,
  type Wallet,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookInput,
} from './client.ts';
export {
  AuthenticationError,
  ConflictError,
  ConnectionError,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
  PrintApiError,
  RateLimitError,
  ServerError,
  UnprocessableError,
  type ErrorDetail,
  type KnownErrorCode,
} from './errors.ts';
export type { ForwardResult, ListenOptions, ListenSession } from './listen.ts';
export type { components, operations, paths } from './generated/api.ts';
export { SDK_VERSION } from './version.ts';
export { newWebhookSecret, signWebhook, type SignOptions } from './webhook-signer.ts';
export {
  verifyWebhook,
  WebhookVerificationError,
  type VerifyOptions,
  type WebhookEvent,
  type WebhookHeaders,
  type WebhookVerificationErrorCode,
} from './webhook-verifier.ts';
