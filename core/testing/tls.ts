import { generate } from 'selfsigned';

/** A throwaway certificate authority and a server certificate it signed. */
export interface TestCertificates {
  /** PEM of the CA: what a client trusts (`ca`, or NODE_EXTRA_CA_CERTS). */
  ca: string;
  /** PEM certificate and key of the server: localhost, 127.0.0.1 and ::1. */
  cert: string;
  key: string;
}

let cached: Promise<TestCertificates> | undefined;

/**
 * Generated once per test process (EC keys: fast). A CA plus a leaf, rather than one
 * self-signed leaf, because that is how real servers look to a client: the verification
 * path under test is the ordinary one.
 */
export function testCertificates(): Promise<TestCertificates> {
  cached ??= generateCertificates();
  return cached;
}

async function generateCertificates(): Promise<TestCertificates> {
  const notAfterDate = new Date(Date.now() + 7 * 24 * 3600 * 1000);
  const common = { keyType: 'ec', curve: 'P-256', algorithm: 'sha256', notAfterDate } as const;
  // A name of its own per process: a client trusting the CAs of two processes (the bench's
  // file host and its webhook receiver) must find each leaf's issuer by name.
  const authority = await generate(
    [{ name: 'commonName', value: `print-api test CA ${process.pid}-${Date.now().toString(36)}` }],
    {
      ...common,
      extensions: [
        { name: 'basicConstraints', cA: true, critical: true },
        { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
      ],
    },
  );
  const server = await generate([{ name: 'commonName', value: 'localhost' }], {
    ...common,
    ca: { key: authority.private, cert: authority.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  return { ca: authority.cert, cert: server.cert, key: server.private };
}
