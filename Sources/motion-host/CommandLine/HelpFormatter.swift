/// Renders help and usage text in swift-argument-parser's layout: `OVERVIEW`, `USAGE`, `ARGUMENTS`,
/// `OPTIONS`, `SUBCOMMANDS`, with help text in a column at 26 characters, wrapped at 80.
struct HelpFormatter {
    /// The width text is wrapped to, in characters.
    static let width = 80
    /// The column where the help of an argument, option or subcommand starts.
    static let helpColumn = 26

    /// The commands from the root to the one being described.
    let chain: [CommandSpec]

    private var command: CommandSpec { chain.last! }
    private var isRoot: Bool { chain.count == 1 }

    /// The usage line's body, e.g. `motion-host run <scene> [--trace]`, wrapped to ``width``.
    /// - Parameter prefix: What comes before it on its first line (`USAGE: ` or `Usage: `).
    func usage(prefix: String) -> String {
        var words = chain.map(\.name)
        if command.run == nil {
            words.append("<subcommand>")
        } else {
            for argument in command.arguments {
                words.append(argument.isOptional ? "[\(argument.label)]" : argument.label)
            }
            for option in command.options {
                let label = option.label + (option.isRepeating ? " ..." : "")
                words.append("[\(label)]")
            }
        }
        let indent = String(repeating: " ", count: prefix.count + chain.map(\.name).joined(separator: " ").count + 1)
        var lines: [String] = []
        var line = prefix
        for (i, word) in words.enumerated() {
            let separator = (i == 0 || line == indent) ? "" : " "
            if i >= chain.count, line.count + separator.count + word.count > Self.width, line != indent {
                lines.append(line)
                line = indent + word
            } else {
                line += separator + word
            }
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }

    /// The full help text, ending with a newline.
    func help() -> String {
        var out = wrap("OVERVIEW: \(command.abstract)", indent: 0) + "\n"
        if let discussion = command.discussion {
            out += "\n" + wrap(discussion, indent: 0) + "\n"
        }
        out += "\n" + usage(prefix: "USAGE: ") + "\n"
        if !command.arguments.isEmpty {
            out += "\nARGUMENTS:\n"
            for argument in command.arguments {
                out += row(argument.label, argument.help)
            }
        }
        out += "\nOPTIONS:\n"
        for option in command.options {
            var label = option.label + (option.isRepeating ? " ..." : "")
            if let short = option.shortName { label = "-\(short), " + label }
            var text = option.help
            if let allowed = option.allowedValues {
                text += " (values: \(allowed.joined(separator: ", ")); default: \(option.defaultValue ?? allowed[0]))"
            } else if let defaultValue = option.defaultValue {
                text += " (default: \(defaultValue))"
            }
            out += row(label, text)
        }
        if isRoot { out += row("--version", "Show the version.") }
        out += row("-h, --help", "Show help information.")
        if !command.subcommands.isEmpty {
            out += "\nSUBCOMMANDS:\n"
            for subcommand in command.subcommands {
                out += row(subcommand.name, subcommand.abstract)
            }
            let path = chain.map(\.name)
            let helpPath = ([path[0], "help"] + path.dropFirst()).joined(separator: " ")
            out += "\n  See '\(helpPath) <subcommand>' for detailed help.\n"
        }
        return out
    }

    /// A usage error as printed to standard error: the message, the usage line and a pointer to help.
    func usageError(_ message: String) -> String {
        let path = chain.map(\.name).joined(separator: " ")
        return "error: \(message)\n" + usage(prefix: "Usage: ") + "\n  See '\(path) --help' for more information.\n"
    }

    private func row(_ label: String, _ text: String) -> String {
        let lead = "  " + label
        let pad = String(repeating: " ", count: Self.helpColumn)
        let body = wrap(text, indent: Self.helpColumn)
        if lead.count < Self.helpColumn - 1 {
            return lead + String(repeating: " ", count: Self.helpColumn - lead.count)
                + body.dropFirst(Self.helpColumn) + "\n"
        }
        return lead + "\n" + (body.hasPrefix(pad) ? body : pad + body) + "\n"
    }

    /// Wraps text to ``width``, every line indented by `indent` spaces (the first one too).
    private func wrap(_ text: String, indent: Int) -> String {
        let pad = String(repeating: " ", count: indent)
        var paragraphs: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var lines: [String] = []
            var line = pad
            for word in paragraph.split(separator: " ") {
                if line.count > indent, line.count + 1 + word.count > Self.width {
                    lines.append(line)
                    line = pad
                }
                line += (line.count > indent ? " " : "") + word
            }
            lines.append(line)
            paragraphs.append(lines.joined(separator: "\n"))
        }
        return paragraphs.joined(separator: "\n")
    }
}
