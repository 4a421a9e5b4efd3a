/**
 * Help a person reads. @effect/cli's own help colours pipes, prints every option of every subcommand
 * on one 450-column line, names the program `$ export` and lists its built-ins (`--wizard`,
 * `--completions`) with generic filler ("A user-defined piece of text."). This module renders the
 * same command tree as plain text wrapped to the terminal (80 columns when stdout is not one), with
 * the real program name, the data sets listed one line each, and a "did you mean" for a command typo.
 *
 * The texts come from the commands themselves (`Command.withDescription`, `Options.withDescription`):
 * only their rendering is decided here.
 */
import type * as Command from "@effect/cli/Command"
import * as CliConfig from "@effect/cli/CliConfig"
import * as Descriptor from "@effect/cli/CommandDescriptor"
import type * as HelpDoc from "@effect/cli/HelpDoc"
import type * as Span from "@effect/cli/HelpDoc/Span"
import * as Usage from "@effect/cli/Usage"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import { suggest } from "../Suggest.js"

/** The program's name, as a user types it. */
export const programName = "explorer-etl"

/** The log levels `--log-level` takes (as @effect/cli's built-in option does). */
export const logLevels = ["all", "trace", "debug", "info", "warning", "error", "fatal", "none"] as const

/** The options every command takes, before or after the subcommand. */
const globalOptions: ReadonlyArray<readonly [string, string]> = [
  ["--log-level <level>", `minimum level of log lines: ${logLevels.join(", ")}`],
  ["-h, --help", "this help; `explorer-etl <command> --help` for a command"],
  ["--version", "the version of explorer-etl"]
]

/** The flags every command takes (`--log-level` is taken out of the line before it is read). */
const globalFlags = ["--help", "-h", "--version", "--log-level"]

/** The flags the program takes before a command: the global ones, and @effect/cli's own. */
const rootFlags = ["--help", "--version", "--log-level", "--wizard", "--completions"]

const config = CliConfig.make({ showBuiltIns: false, showAllNames: true, showTypes: true })

/** The plain text of a span (no colours). */
const spanText = (span: Span.Span): string => {
  switch (span._tag) {
    case "Text":
    case "URI":
      return span.value
    case "Sequence":
      return spanText(span.left) + spanText(span.right)
    case "Highlight":
    case "Strong":
    case "Weak":
      return spanText(span.value)
  }
}

/** Words wrapped to `width`, every line starting with `indent` spaces (a word longer than a line stays whole). */
export const wrap = (text: string, width: number, indent: number, hanging = indent): Array<string> => {
  const lines: Array<string> = []
  let current = " ".repeat(indent)
  let empty = true
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    if (!empty && current.length + 1 + word.length > width) {
      lines.push(current)
      current = " ".repeat(hanging) + word
    } else {
      current += (empty ? "" : " ") + word
    }
    empty = false
  }
  if (!empty) lines.push(current)
  return lines
}

/**
 * @effect/cli's generic sentences about an option's type: the option's own description says what it
 * is for, and the usage line shows its type.
 */
const filler = [
  /^A true or false value\.$/,
  /^A user-defined piece of text( that is confidential)?\.$/,
  /^An integer\.$/,
  /^A floating point number\.$/,
  /^This setting is optional\.$/,
  /^This option can be set from environment variables\.$/,
  /^This (option|argument) may be repeated zero or more times\.$/
]

/** The sentences of an option's or argument's block, filler dropped, @effect/cli's wordings shortened. */
const blockSentences = (doc: HelpDoc.HelpDoc): Array<string> => {
  switch (doc._tag) {
    case "Empty":
      return []
    case "Header":
    case "Paragraph": {
      const text = spanText(doc.value).trim()
      if (text === "" || filler.some((re) => re.test(text))) return []
      const choice = /^One of the following: (.*)$/.exec(text)
      if (choice !== null) return [`one of: ${choice[1]}`]
      const fallback = /^This setting is optional\. Defaults to: (.*)$/.exec(text)
      if (fallback !== null) return [`default: ${fallback[1]}`]
      return [text]
    }
    case "Sequence":
      return [...blockSentences(doc.left), ...blockSentences(doc.right)]
    case "Enumeration":
      return doc.elements.flatMap(blockSentences)
    case "DescriptionList":
      return doc.definitions.flatMap(([term, block]) => [spanText(term), ...blockSentences(block)])
  }
}

/** A command's help as sections: header → paragraphs / definition lists. */
interface Section {
  readonly title: string
  readonly paragraphs: Array<string>
  readonly definitions: Array<readonly [string, string]>
}

const sectionsOf = (doc: HelpDoc.HelpDoc): Array<Section> => {
  const sections: Array<Section> = []
  const visit = (d: HelpDoc.HelpDoc): void => {
    switch (d._tag) {
      case "Empty":
        return
      case "Sequence":
        visit(d.left)
        visit(d.right)
        return
      case "Header":
        sections.push({ title: spanText(d.value).trim(), paragraphs: [], definitions: [] })
        return
      case "Paragraph": {
        const text = spanText(d.value).trim()
        if (text !== "") sections.at(-1)?.paragraphs.push(text)
        return
      }
      case "DescriptionList":
        for (const [term, block] of d.definitions) {
          // The option's own description first, then what @effect/cli adds (its choices, its default).
          const sentences = blockSentences(block)
          const added = (t: string) => t.startsWith("one of: ") || t.startsWith("default: ")
          const text = [...sentences.filter((t) => !added(t)), ...sentences.filter(added)].join("; ")
          sections.at(-1)?.definitions.push([termOf(spanText(term)), text])
        }
        return
      case "Enumeration":
        for (const element of d.elements) visit(element)
        return
    }
  }
  visit(doc)
  return sections
}

/** `--plan <plan>`, `--out <text>`, `<module>`: a flag's names and a placeholder for its value. */
const term = (names: ReadonlyArray<string>, accepted: Option.Option<string>): string => {
  const flag = names.find((n) => n.startsWith("--")) ?? names[0] ?? ""
  const value = Option.match(accepted, {
    onNone: () => "",
    onSome: (type) => type.includes("|") ? flag.replace(/^-+/, "") : type === "redacted" ? "text" : type
  })
  return value === "" ? names.join(", ") : `${names.join(", ")} <${value}>`
}

/** An option's term as @effect/cli writes it (`(-o, --out text)`) in the form of `term`. */
const termOf = (text: string): string => {
  const match = /^\(?((?:-{1,2}[\w-]+)(?:, -{1,2}[\w-]+)*)(?: (.+?))?\)?(\.\.\.)?$/.exec(text.trim())
  if (match === null) return text
  return term((match[1] as string).split(", "), Option.fromNullable(match[2])) + (match[3] ?? "")
}

/**
 * The usage line of a command: what it requires, in order, then `[options]` for everything optional
 * (listed one by one under OPTIONS), e.g. `txs --address <text> --out <text> [options]`.
 */
const usageText = (usage: Usage.Usage): string => {
  let optional = false
  const words: Array<string> = []
  const visit = (u: Usage.Usage, repeated: boolean): void => {
    switch (u._tag) {
      case "Empty":
        return
      case "Mixed":
        words.push("<command>")
        return
      case "Named": {
        const names = u.names.filter((n) => n !== "")
        const shown = names.some((n) => n.startsWith("-"))
          ? term(names.filter((n) => n.startsWith("--")).slice(0, 1), u.acceptedValues)
          : names.join(" ")
        words.push(repeated ? `${shown}...` : shown)
        return
      }
      case "Optional":
        optional = true
        return
      case "Repeated":
        // A repeatable flag may be left out (`--topic-op`); a repeated argument is shown (`<name=value>...`).
        if (u.usage._tag === "Named" && u.usage.names.some((n) => n.startsWith("-"))) optional = true
        else visit(u.usage, true)
        return
      case "Alternation":
        optional = true
        return
      case "Concat":
        visit(u.left, repeated)
        visit(u.right, repeated)
        return
    }
  }
  visit(usage, false)
  return [...words, ...(optional ? ["[options]"] : [])].join(" ")
}

/** The one-line description of a command (its first DESCRIPTION paragraph). */
const descriptionOf = (command: Descriptor.Command<unknown>): string =>
  sectionsOf(Descriptor.getHelp(command, config)).find((s) => s.title === "DESCRIPTION")?.paragraphs[0] ?? ""

/** A command as the help sees it: only its descriptor (names, descriptions, options), never its handler. */
type AnyCommand = Pick<Command.Command<string, never, unknown, unknown>, "descriptor">

/** The subcommands of a command with subcommands, in name order: name → descriptor. */
const childrenOf = (command: AnyCommand): Array<readonly [string, Descriptor.Command<unknown>]> =>
  [...HashMap.toEntries(Descriptor.getSubcommands(command.descriptor))].sort(([a], [b]) => a.localeCompare(b))

/** The command tree the help is rendered from. */
export interface HelpTree {
  /** The root command (`explorer-etl`). */
  readonly root: AnyCommand
  /** Commands with subcommands of their own (`export`), by name. */
  readonly nested: Readonly<Record<string, AnyCommand>>
  /** What the subcommands of a nested command are called in the help (`data set` for export). */
  readonly childNoun: Readonly<Record<string, string>>
  readonly version: string
}

/** What a command line asks for, before @effect/cli parses it. */
export type Request =
  /** The help of the command at `path` (`--help`, or a command with subcommands named alone). */
  | { readonly _tag: "help"; readonly path: ReadonlyArray<string> }
  /** A word that is not a command of `path`: the names there and the closest one. */
  | {
    readonly _tag: "unknown"
    readonly path: ReadonlyArray<string>
    readonly word: string
    readonly names: ReadonlyArray<string>
    readonly suggestion: string | undefined
  }
  /**
   * A flag the command at `path` does not take (`--hepl`): the closest one it takes, and the sibling
   * commands that take it (`--abi-cache` given to `export logs`: `events`).
   */
  | {
    readonly _tag: "unknownFlag"
    readonly path: ReadonlyArray<string>
    readonly flag: string
    readonly suggestion: string | undefined
    readonly takenBy: ReadonlyArray<string>
  }
  /** A flag where a subcommand of `path` should come first (`export --out x.csv`). */
  | { readonly _tag: "missing"; readonly path: ReadonlyArray<string>; readonly names: ReadonlyArray<string> }
  /** A command line for @effect/cli to parse and run. */
  | { readonly _tag: "run" }

/** Help lookups over a command tree. */
export const make = (tree: HelpTree) => {
  /** The subcommand names at `path` ([] = the root's commands), or undefined for a leaf. */
  const namesAt = (path: ReadonlyArray<string>): Array<string> | undefined => {
    if (path.length === 0) return childrenOf(tree.root).map(([name]) => name)
    if (path.length === 1 && path[0] !== undefined && tree.nested[path[0]] !== undefined) {
      return childrenOf(tree.nested[path[0]] as AnyCommand).map(([name]) => name)
    }
    return undefined
  }

  const descriptorAt = (path: ReadonlyArray<string>): Descriptor.Command<unknown> | undefined => {
    if (path.length === 0) return undefined
    if (path.length === 1) return childrenOf(tree.root).find(([name]) => name === path[0])?.[1]
    const parent = tree.nested[path[0] as string]
    return parent === undefined ? undefined : childrenOf(parent).find(([name]) => name === path[1])?.[1]
  }

  /** The flags of the command at `path` (a leaf), each with whether it takes a value; undefined elsewhere. */
  const flagsAt = (path: ReadonlyArray<string>): Map<string, boolean> | undefined => {
    const descriptor = descriptorAt(path)
    if (descriptor === undefined || namesAt(path) !== undefined) return undefined
    const flags = new Map<string, boolean>()
    const visit = (u: Usage.Usage): void => {
      switch (u._tag) {
        case "Named":
          for (const name of u.names) if (name.startsWith("-")) flags.set(name, Option.isSome(u.acceptedValues))
          return
        case "Optional":
        case "Repeated":
          return visit(u.usage)
        case "Concat":
        case "Alternation":
          visit(u.left)
          return visit(u.right)
        default:
          return
      }
    }
    visit(Descriptor.getUsage(descriptor))
    for (const name of globalFlags) flags.set(name, false)
    return flags
  }

  /** The first flag of `words` (after the command at `path`) that the command does not take. */
  const unknownFlagIn = (path: ReadonlyArray<string>, words: ReadonlyArray<string>): Request | undefined => {
    const flags = flagsAt(path)
    if (flags === undefined) return undefined
    for (let i = 0; i < words.length; i++) {
      const word = words[i] as string
      if (!word.startsWith("--")) continue
      const name = word.split("=")[0] as string
      const takesValue = flags.get(name)
      if (takesValue === undefined) {
        const siblings = path.length === 0 ? [] : namesAt(path.slice(0, -1)) ?? []
        const takenBy = siblings.filter((other) => other !== path[path.length - 1] && flagsAt([...path.slice(0, -1), other])?.has(name) === true)
        return { _tag: "unknownFlag", path, flag: name, suggestion: suggest(name, [...flags.keys()].filter((f) => f.startsWith("--"))), takenBy }
      }
      // A value may look like a flag (`--event --x` is the event "--x"): the word after a flag that takes one is its value.
      if (takesValue && !word.includes("=")) i++
    }
    return undefined
  }

  /** What the subcommands at `path` are called: `command`, `data set` under export. */
  const nounAt = (path: ReadonlyArray<string>): string =>
    path.length === 0 ? "command" : tree.childNoun[path[0] as string] ?? "command"

  const listing = (title: string, entries: ReadonlyArray<readonly [string, string]>, width: number): Array<string> => {
    const column = Math.min(Math.max(...entries.map(([name]) => name.length)) + 4, 26)
    const lines = [title]
    for (const [name, description] of entries) {
      if (name.length + 4 <= column) {
        const text = wrap(description, width, column)
        lines.push(`  ${name.padEnd(column - 2)}${(text[0] ?? "").trimStart()}`, ...text.slice(1))
      } else {
        lines.push(`  ${name}`, ...wrap(description, width, column))
      }
    }
    return lines
  }

  /** The help of the command at `path` (`[]`, `["export"]`, `["export", "txs"]`), as plain text. */
  const render = (path: ReadonlyArray<string>, width: number): string => {
    const lines: Array<string> = []
    const command = [programName, ...path].join(" ")
    const children = namesAt(path)
    if (children !== undefined) {
      const noun = nounAt(path)
      const described = path.length === 0 ? tree.root.descriptor : descriptorAt(path)
      const description = described === undefined ? "" : descriptionOf(described)
      lines.push(...wrap(`${command}${path.length === 0 ? ` ${tree.version}` : ""}: ${description}`, width, 0, 2), "")
      lines.push("USAGE", ...wrap(`${command} <${noun.replace(/ /g, "-")}> [options]`, width, 2, 6), "")
      const nested = path.length === 0 ? tree.root : tree.nested[path[0] as string] as AnyCommand
      const entries = childrenOf(nested).map(([name, d]) => [name, descriptionOf(d)] as const)
      lines.push(...listing(`${noun.toUpperCase()}S`, entries, width), "")
      lines.push(...wrap(`\`${command} <${noun.replace(/ /g, "-")}> --help\` shows the options of one.`, width, 0), "")
    } else {
      const descriptor = descriptorAt(path)
      if (descriptor === undefined) return render([], width)
      const sections = sectionsOf(Descriptor.getHelp(descriptor, config))
      const description = sections.find((s) => s.title === "DESCRIPTION")?.paragraphs.join(" ") ?? ""
      lines.push(...wrap(`${command}: ${description}`, width, 0, 2), "")
      // The usage starts with the command's own name: its parents are put before it.
      const usage = [programName, ...path.slice(0, -1), usageText(Descriptor.getUsage(descriptor))].join(" ")
      lines.push("USAGE", ...wrap(usage, width, 2, 6), "")
      for (const section of sections) {
        if (section.title === "DESCRIPTION" || section.definitions.length === 0) continue
        lines.push(...listing(section.title, section.definitions, width), "")
      }
    }
    lines.push(...listing("GLOBAL OPTIONS", globalOptions, width))
    return lines.join("\n") + "\n"
  }

  /**
   * What the command line `args` (after the program) asks for: help, a command that does not exist,
   * a missing subcommand, or a command for @effect/cli to run.
   */
  const classify = (args: ReadonlyArray<string>): Request => {
    const path: Array<string> = []
    const end = args.indexOf("--")
    const words = end === -1 ? args : args.slice(0, end)
    const wantsHelp = words.some((w) => w === "--help" || w === "-h")
    for (const word of words) {
      const names = namesAt(path)
      if (names === undefined) break
      if (word.startsWith("-")) {
        // A flag before the (sub)command: the help is the deepest command named so far.
        if (wantsHelp) break
        if (path.length === 0 && word.startsWith("--") && !rootFlags.includes(word.split("=")[0] as string)) {
          return { _tag: "unknownFlag", path, flag: word, suggestion: suggest(word, rootFlags), takenBy: [] }
        }
        return path.length === 0 ? { _tag: "run" } : { _tag: "missing", path, names }
      }
      if (!names.includes(word)) {
        return { _tag: "unknown", path: [...path], word, names, suggestion: suggest(word, names) }
      }
      path.push(word)
    }
    if (wantsHelp) return { _tag: "help", path }
    // A command with subcommands named without one (`explorer-etl export`): its help.
    if (namesAt(path) !== undefined) return path.length === 0 && words.length > 0 ? { _tag: "run" } : { _tag: "help", path }
    return unknownFlagIn(path, words.slice(path.length)) ?? { _tag: "run" }
  }

  return { render, classify, namesAt, nounAt }
}
