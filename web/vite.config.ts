import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The production build is committed under app/web/static so `tdg serve` needs no Node.
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
      '/graphql': { target: 'http://127.0.0.1:8000', ws: true },
      '/api': 'http://127.0.0.1:8000',
      '/avatars': 'http://127.0.0.1:8000',
    },
  },
});
