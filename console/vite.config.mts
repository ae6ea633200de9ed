import { defineConfig } from 'vite';

// The console is served by the service at /console (src/console/serve-console.ts), built into
// console/dist by `npm run build`. Preact's JSX through Vite's own transform: no plugin needed.
export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: true,
  },
});
