/// The declaration of one command of the command tree: its name, help text, positional arguments,
/// options, subcommands and what it runs.
///
/// The shape follows swift-argument-parser's `CommandConfiguration`: a command either runs (``run``)
/// or groups subcommands; a group run without a subcommand prints its help (argument-parser's
/// `CleanExit.helpRequest`).
struct CommandSpec: Sendable {
    /// The name typed on the command line, e.g. `run`.
    var name: String
    /// One sentence shown after `OVERVIEW:` and in the parent's `SUBCOMMANDS:` list.
    var abstract: String
    /// More paragraphs shown under the overview, or `nil`.
    var discussion: String?
    /// The positional arguments, in order.
    var arguments: [ArgumentSpec] = []
    /// The options and flags, in the order help lists them (`--help` is added by the parser).
    var options: [OptionSpec] = []
    /// The subcommands, in the order help lists them.
    var subcommands: [CommandSpec] = []
    /// What the command does with its parsed values; `nil` for a group that only holds subcommands.
    /// Returns the process exit status.
    var run: (@Sendable (ParsedValues) throws -> Int32)?

    /// The subcommand of that name, if any.
    func subcommand(named name: String) -> CommandSpec? { subcommands.first { $0.name == name } }
}

/// A positional argument of a command.
struct ArgumentSpec: Sendable {
    /// The value's name as help shows it, without brackets (e.g. `scene` shows as `<scene>`).
    var name: String
    /// One line of help.
    var help: String
    /// Whether the argument may be left out.
    var isOptional = false

    /// `<name>`, as usage lines and errors show it.
    var label: String { "<\(name)>" }
}

/// An option (`--name <value>`) or a flag (`--name`) of a command.
struct OptionSpec: Sendable {
    /// The long name without dashes, e.g. `plot`.
    var name: String
    /// The one-letter short name, if any (`-o`).
    var shortName: Character?
    /// The value's name as help shows it (`file` shows as `<file>`); `nil` for a flag.
    var valueName: String?
    /// One line of help.
    var help: String
    /// Whether the option may be given several times, each value kept (`--plugin-path A --plugin-path B`).
    var isRepeating = false
    /// The only values accepted, or `nil` for any value.
    var allowedValues: [String]?
    /// The default value help shows, or `nil`.
    var defaultValue: String?

    /// Whether this is a flag (takes no value).
    var isFlag: Bool { valueName == nil }

    /// `--name <value>` (or `--name` for a flag), as usage lines and errors show it.
    var label: String { valueName.map { "--\(name) <\($0)>" } ?? "--\(name)" }

    /// A flag.
    static func flag(_ name: String, short: Character? = nil, help: String) -> OptionSpec {
        OptionSpec(name: name, shortName: short, valueName: nil, help: help)
    }

    /// An option that takes a value.
    static func option(
        _ name: String, short: Character? = nil, value: String, help: String, repeating: Bool = false,
        allowed: [String]? = nil, default defaultValue: String? = nil
    ) -> OptionSpec {
        OptionSpec(
            name: name, shortName: short, valueName: value, help: help, isRepeating: repeating,
            allowedValues: allowed, defaultValue: defaultValue)
    }
}

/// The values a command line gave one command: options by long name, flags, positionals by name.
struct ParsedValues: Sendable {
    /// The names of the commands from the root to this one (e.g. `["motion-host", "run"]`).
    var commandPath: [String]
    /// Each option's values, in the order given, by long name.
    var options: [String: [String]] = [:]
    /// The flags given, by long name.
    var flags: Set<String> = []
    /// Each positional argument's value, by name.
    var arguments: [String: String] = [:]

    /// The last value given for an option, or `nil`.
    func value(_ name: String) -> String? { options[name]?.last }

    /// Every value given for a repeating option, in order.
    func values(_ name: String) -> [String] { options[name] ?? [] }

    /// Whether a flag was given.
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// A positional argument's value, or `nil` if left out.
    func argument(_ name: String) -> String? { arguments[name] }
}
