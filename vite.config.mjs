// Builds the web console (console/, Preact) into dist/console, which the agent serves at "/".
// Relative asset paths and no external URLs: the agent serves every file itself.
import { defineConfig } from "vite";

export default defineConfig({
  root: "console",
  base: "/",
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  build: {
    outDir: "../dist/console",
    emptyOutDir: true,
    target: "es2022",
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
});
