// The shipped examples as tests use them: read from examples/, with their fixed ports moved to
// free ones so that tests running at once on one machine do not meet on a port.
import { readFile } from "node:fs/promises";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

/** EXAMPLES_DIR is the repository's examples/ directory. */
export const EXAMPLES_DIR = fileURLToPath(new URL("../../../examples/", import.meta.url));

/** freePort is a TCP port nothing listens on at the moment. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** withPorts is an example's text with each of its fixed ports moved to a free one. */
export async function withPorts(text: string, fixed: readonly number[]): Promise<string> {
  let out = text;
  for (const port of fixed) out = out.replace(new RegExp(`\\b${port}\\b`, "g"), String(await freePort()));
  return out;
}

/** exampleWithFreePorts is examples/NAME with each of its fixed ports moved to a free one. */
export async function exampleWithFreePorts(name: string, fixed: readonly number[]): Promise<string> {
  return withPorts(await readFile(`${EXAMPLES_DIR}${name}`, "utf8"), fixed);
}
