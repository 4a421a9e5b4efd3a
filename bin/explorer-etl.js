#!/usr/bin/env node
// explorer-etl ships its TypeScript sources; tsx (a dependency) compiles them on the fly.
import { register } from "tsx/esm/api"

register()
await import("../src/cli/main.ts")
