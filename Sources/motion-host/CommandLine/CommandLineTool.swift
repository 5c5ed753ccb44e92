import FoundationEssentials
import MotionFiles

/// Runs a command line against the command tree and turns the outcome into output and an exit
/// status, as swift-argument-parser does: help and version to standard output with status 0; usage
/// errors to standard error with status 64 (`EX_USAGE`); other failures to standard error as one
/// line, `error: ...`, with status 1.
enum CommandLineTool {
    /// The exit status of a usage error (`EX_USAGE` from `sysexits.h`).
    static let usageErrorStatus: Int32 = 64

    /// Parses and runs a command line.
    /// - Parameters:
    ///   - root: The command tree.
    ///   - version: What `--version` prints.
    ///   - arguments: The arguments, without the executable's name.
    /// - Returns: The exit status.
    static func main(root: CommandSpec, version: String, arguments: [String]) -> Int32 {
        let parser = ArgumentParser(root: root)
        do {
            switch try parser.parse(arguments) {
            case .help(let chain):
                writeStandardOutput(HelpFormatter(chain: chain).help())
                return 0
            case .version:
                writeStandardOutput(version + "\n")
                return 0
            case .run(let command, let values):
                return try command.run!(values)
            }
        } catch let error as UsageError {
            writeStandardError(
                HelpFormatter(chain: chain(for: error.commandPath, root: root)).usageError(error.message))
            return usageErrorStatus
        } catch let error as MotionHostError {
            writeStandardError("error: \(error.description)\n")
            return 1
        } catch {
            writeStandardError("error: \(error)\n")
            return 1
        }
    }

    private static func chain(for path: [String], root: CommandSpec) -> [CommandSpec] {
        var chain = [root]
        for name in path.dropFirst() {
            guard let next = chain.last!.subcommand(named: name) else { break }
            chain.append(next)
        }
        return chain
    }

    /// Writes text to standard output.
    static func writeStandardOutput(_ text: String) {
        StandardStream.output.write(text)
    }

    /// Writes text to standard error.
    static func writeStandardError(_ text: String) {
        StandardStream.error.write(text)
    }
}
