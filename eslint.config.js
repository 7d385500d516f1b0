// ESLint flat config: typescript-eslint's strict rules plus one architectural rule —
// time comes only from the injected Clock (src/util/clock.ts), never from timer globals.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

const timerGlobals = ["setTimeout", "setInterval", "clearTimeout", "clearInterval"].map((name) => ({
  name,
  message: "Use the injected Clock (src/util/clock.ts) so timing logic stays testable.",
}));

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "build/", ".bench/"] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    files: ["**/*.ts"],
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-non-null-assertion": "off",
    },
  },
  {
    files: ["src/**/*.ts"],
    ignores: ["src/**/*.test.ts", "src/util/clock.ts"],
    rules: {
      "no-restricted-globals": ["error", ...timerGlobals],
      "no-restricted-properties": [
        "error",
        { object: "Date", property: "now", message: "Use the injected Clock (src/util/clock.ts)." },
      ],
      "no-restricted-imports": [
        "error",
        {
          paths: ["node:timers", "node:timers/promises", "timers", "timers/promises"].map((name) => ({
            name,
            message: "Use the injected Clock (src/util/clock.ts) so timing logic stays testable.",
          })),
        },
      ],
    },
  },
  {
    files: ["**/*.js", "**/*.mjs"],
    languageOptions: {
      globals: Object.fromEntries(
        ["process", "console", "setTimeout", "clearTimeout", "setInterval", "clearInterval", "setImmediate", "URL", "Buffer", "performance"].map((name) => [name, "readonly"]),
      ),
    },
  },
);
