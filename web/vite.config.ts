import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The production build is committed under app/web/static so `tdg serve` needs no Node.
// `npm run dev` proxies the API to a running `tdg serve` (TDG_API, default http://127.0.0.1:8000).
const api = process.env.TDG_API ?? 'http://127.0.0.1:8000';

export default defineConfig({
  plugins: [react()],
  base: '/',
  build: {
    outDir: '../app/web/static',
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    chunkSizeWarningLimit: 900,
  },
  server: {
    proxy: {
      '/graphql': { target: api, ws: true },
      '/api': api,
      '/avatars': api,
    },
  },
});
