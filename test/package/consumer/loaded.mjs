// Records every module URL Node loads after this hook is registered (node --import ./loaded.mjs …):
// the test reads the list to see what the root entry pulls in.
import { register } from "node:module"
register("data:text/javascript," + encodeURIComponent(`
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context)
  process.stderr.write("loaded " + result.url + "\\n")
  return result
}`), import.meta.url)
