// Next's settings for the status page. The repository has one package.json and one node_modules at its root, so
// Turbopack's root (and file tracing's) is the repository; nothing here fetches from the network.
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** @type {import('next').NextConfig} */
export default {
  turbopack: { root },
  outputFileTracingRoot: root,
  poweredByHeader: false,
  reactStrictMode: true,
};
