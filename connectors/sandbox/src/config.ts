import { z } from 'zod';

/**
 * The sandbox platform's origin. Its default is a name that never resolves (`.invalid`): core
 * answers it in-process (its sandbox module is the platform), so nothing leaves the service.
 */
export const SANDBOX_API_URL = 'https://sandbox.print-api.invalid';

export const settingsSchema = z.object({
  apiUrl: z
    .url({ protocol: /^https$/ })
    .default(SANDBOX_API_URL)
    .meta({
      description:
        "Origin of the sandbox platform's API; the default is served by the service itself, in-process (no network)",
    }),
});
export type SandboxSettings = z.output<typeof settingsSchema>;

/** `POST /stores {platform: "SANDBOX", name?}`: the sandbox shop is opened for the store. */
export const connectSchema = z.strictObject({
  name: z
    .string()
    .trim()
    .min(1)
    .max(80)
    .optional()
    .meta({ description: "The sandbox shop's name (default: Sandbox store)." }),
});

/** What the sandbox platform issued when the shop was opened: its id and the shop's API token. */
export const credentialsSchema = z.object({ shopId: z.string(), token: z.string() });
export type SandboxCredentials = z.infer<typeof credentialsSchema>;
