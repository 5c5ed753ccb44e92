import MotionCore

/// What a command line asks for once parsed.
enum ParseOutcome {
    /// Run a command with these values.
    case run(CommandSpec, ParsedValues)
    /// Print the help of the command at this path (names from the root).
    case help([CommandSpec])
    /// Print the version.
    case version
}

/// A command line that does not fit the command tree: printed to standard error with the usage
/// line, exit status 64 (`EX_USAGE`), as swift-argument-parser does.
struct UsageError: Error, Equatable {
    /// The one-line message, e.g. `Unknown option '--plto'. Did you mean '--plot'?`.
    var message: String
    /// The names of the commands from the root to the one whose usage applies.
    var commandPath: [String]
}

/// Parses command lines against a tree of ``CommandSpec``s, following swift-argument-parser's
/// conventions.
///
/// - Subcommands come first: `motion-host plugins list`.
/// - `-h`/`--help` anywhere before `--` asks for the help of the deepest command named; so does
///   `help [subcommand...]` as the first argument. `--version` asks for the version.
/// - Options take their value as the next argument or after `=` (`--output out.jsonl`,
///   `--output=out.jsonl`); a repeated non-repeating option keeps its last value.
/// - `--` ends the options: everything after it is positional.
/// - Unknown options, subcommands and values get a "Did you mean" for near misses.
struct ArgumentParser {
    /// The root command (the executable).
    let root: CommandSpec

    /// Parses the arguments (without the executable's own name).
    /// - Throws: ``UsageError`` when the arguments do not fit the command tree.
    func parse(_ arguments: [String]) throws(UsageError) -> ParseOutcome {
        var chain = [root]
        var index = 0
        if arguments.first == "help" {
            for name in arguments.dropFirst() {
                guard let next = chain.last!.subcommand(named: name) else {
                    throw unknownSubcommand(name, in: chain)
                }
                chain.append(next)
            }
            return .help(chain)
        }
        // Subcommand names come before anything else.
        while index < arguments.count, !chain.last!.subcommands.isEmpty, !arguments[index].hasPrefix("-") {
            let name = arguments[index]
            guard let next = chain.last!.subcommand(named: name) else {
                throw unknownSubcommand(name, in: chain)
            }
            chain.append(next)
            index += 1
        }
        let rest = Array(arguments[index...])
        let beforeTerminator = rest.prefix { $0 != "--" }
        if beforeTerminator.contains(where: { $0 == "-h" || $0 == "--help" }) { return .help(chain) }
        if beforeTerminator.contains("--version") { return .version }

        let command = chain.last!
        let path = chain.map(\.name)
        guard command.run != nil else {
            if let first = rest.first, !first.hasPrefix("-") {
                throw unknownSubcommand(first, in: chain)
            }
            if let first = rest.first {
                throw UsageError(message: unknownOptionMessage(first, for: command), commandPath: path)
            }
            return .help(chain)
        }
        var values = ParsedValues(commandPath: path)
        var positionals: [String] = []
        var onlyPositionals = false
        var i = 0
        while i < rest.count {
            let token = rest[i]
            i += 1
            if onlyPositionals || token == "-" || !token.hasPrefix("-") || isNumber(token) {
                positionals.append(token)
                continue
            }
            if token == "--" {
                onlyPositionals = true
                continue
            }
            var name: Substring
            var attached: String?
            if token.hasPrefix("--") {
                name = token.dropFirst(2)
                if let eq = name.firstIndex(of: "=") {
                    attached = String(name[name.index(after: eq)...])
                    name = name[..<eq]
                }
            } else {
                name = token.dropFirst()
                if name.count > 1 {
                    attached = String(name.dropFirst())
                    name = name.prefix(1)
                }
            }
            let option: OptionSpec? =
                token.hasPrefix("--")
                ? command.options.first { $0.name == name }
                : command.options.first { $0.shortName.map(String.init) == String(name) }
            guard let option else {
                let shown = token.hasPrefix("--") ? "--\(name)" : "-\(name)"
                throw UsageError(message: unknownOptionMessage(shown, for: command), commandPath: path)
            }
            if option.isFlag {
                if attached != nil {
                    throw UsageError(message: "The flag '\(option.label)' does not take a value", commandPath: path)
                }
                values.flags.insert(option.name)
                continue
            }
            let value: String
            if let attached {
                value = attached
            } else if i < rest.count, !rest[i].hasPrefix("-") || rest[i] == "-" || isNumber(rest[i]) {
                value = rest[i]
                i += 1
            } else {
                throw UsageError(message: "Missing value for '\(option.label)'", commandPath: path)
            }
            if let allowed = option.allowedValues, !allowed.contains(value) {
                var message = "The value '\(value)' is invalid for '\(option.label)'"
                if let near = nearestName(to: value, among: allowed) {
                    message += ". Did you mean '\(near)'?"
                } else {
                    message += ". Please provide one of \(allowed.map { "'\($0)'" }.joined(separator: ", "))."
                }
                throw UsageError(message: message, commandPath: path)
            }
            if option.isRepeating {
                values.options[option.name, default: []].append(value)
            } else {
                values.options[option.name] = [value]
            }
        }
        for (position, argument) in command.arguments.enumerated() {
            if position < positionals.count {
                values.arguments[argument.name] = positionals[position]
            } else if !argument.isOptional {
                throw UsageError(message: "Missing expected argument '\(argument.label)'", commandPath: path)
            }
        }
        if positionals.count > command.arguments.count {
            let extra = positionals[command.arguments.count]
            throw UsageError(message: "Unexpected argument '\(extra)'", commandPath: path)
        }
        return .run(command, values)
    }

    private func unknownOptionMessage(_ shown: String, for command: CommandSpec) -> String {
        var names = command.options.map { "--\($0.name)" } + ["--help"]
        if command.name == root.name { names.append("--version") }
        var message = "Unknown option '\(shown)'"
        if let near = nearestName(to: shown, among: names) { message += ". Did you mean '\(near)'?" }
        return message
    }

    private func unknownSubcommand(_ name: String, in chain: [CommandSpec]) -> UsageError {
        let command = chain.last!
        var message = "Unknown subcommand '\(name)'"
        if let near = nearestName(to: name, among: command.subcommands.map(\.name)) {
            message += ". Did you mean '\(near)'?"
        } else if !command.subcommands.isEmpty {
            message += ". Expected one of: \(command.subcommands.map(\.name).joined(separator: ", "))"
        }
        return UsageError(message: message, commandPath: chain.map(\.name))
    }

    /// Negative numbers are values, not options (`--duration -1` reaches the command's own check).
    private func isNumber(_ token: String) -> Bool {
        token.count > 1 && token.hasPrefix("-") && Double(token) != nil
    }
}
