// The console's static files (built by Vite into dist/console), read into memory once at start
// and served with their content types, caching headers and a strict Content-Security-Policy:
// every script, style and request stays on the agent's own origin, nothing is fetched elsewhere.
import { readdir, readFile, stat } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { extname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** CONSOLE_DIR is where the built console lives in the package (dist/console). */
export const CONSOLE_DIR = fileURLToPath(new URL("../../console/", import.meta.url));

/** CONTENT_SECURITY_POLICY allows only the agent's own scripts, styles and requests. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** SECURITY_HEADERS go on every console response. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy": CONTENT_SECURITY_POLICY,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
};

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
};

/** Bounds on what is loaded: the console is a few hundred KiB. */
const MAX_FILES = 200;
const MAX_TOTAL_BYTES = 16 * 1024 * 1024;

interface Asset {
  body: Buffer;
  contentType: string;
  /** Vite names files under assets/ by content hash: they never change and may be cached for good. */
  immutable: boolean;
}

/** ConsoleAssets maps URL paths ("/", "/assets/index-1a2b.js") to the built files. */
export class ConsoleAssets {
  private constructor(private readonly files: ReadonlyMap<string, Asset>) {}

  /** load reads every file under dir; a missing dir gives an empty set (the console was not built). */
  static async load(dir: string = CONSOLE_DIR): Promise<ConsoleAssets> {
    const files = new Map<string, Asset>();
    let total = 0;
    const exists = await stat(dir).then((s) => s.isDirectory(), () => false);
    if (!exists) return new ConsoleAssets(files);
    for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const contentType = CONTENT_TYPES[extname(entry.name)];
      if (contentType === undefined) continue;
      if (files.size >= MAX_FILES) throw new Error(`the console in ${dir} has more than ${MAX_FILES} files`);
      const path = join(entry.parentPath, entry.name);
      const body = await readFile(path);
      total += body.length;
      if (total > MAX_TOTAL_BYTES) throw new Error(`the console in ${dir} is larger than ${MAX_TOTAL_BYTES} bytes`);
      const urlPath = `/${relative(dir, path).split(sep).join("/")}`;
      files.set(urlPath, { body, contentType, immutable: urlPath.startsWith("/assets/") });
    }
    return new ConsoleAssets(files);
  }

  /** has reports whether path names a console file; "/" is the index page. */
  has(path: string): boolean {
    return this.files.has(path === "/" ? "/index.html" : path);
  }

  /** serve answers a GET or HEAD for a file that has() found. */
  serve(res: ServerResponse, path: string, head: boolean): void {
    const asset = this.files.get(path === "/" ? "/index.html" : path);
    if (asset === undefined) return;
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      "Content-Type": asset.contentType,
      "Content-Length": asset.body.length,
      "Cache-Control": asset.immutable ? "public, max-age=31536000, immutable" : "no-cache",
    });
    res.end(head ? undefined : asset.body);
  }
}
