import { defineConfig } from 'vite';

// The console is served by the service at /console (src/console/serve-console.ts), built into
// console/dist by `npm run build`. Preact's JSX through Vite's own transform: no plugin needed.
export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  // `npm run console:dev`: the API of a service running on port 3000 (SVC_URL to change it).
  server: {
    proxy: Object.fromEntries(
      ['/projects', '/domains', '/webhooks', '/events', '/url', '/stats', '/conversions'].map((path) => [
        path,
        process.env.SVC_URL ?? 'http://localhost:3000',
      ]),
    ),
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: true,
  },
});
