import Foundation
import Testing

@Suite("Help and version")
struct HelpAndVersionTests {
    @Test func rootHelpListsSubcommandsOnStandardOutputWithStatusZero() throws {
        let result = try MotionHost.run(["--help"])
        #expect(result.status == 0)
        #expect(result.standardError.isEmpty)
        let text = result.standardOutput
        #expect(text.hasPrefix("OVERVIEW: Run motion described as data"))
        #expect(text.contains("\nUSAGE: motion-host <subcommand>\n"))
        #expect(
            text.contains(
                "\nOPTIONS:\n  --version               Show the version.\n  -h, --help              Show help information.\n"
            ))
        #expect(text.contains("\nSUBCOMMANDS:\n  run                     Run a scene"))
        #expect(text.contains("\n  plugins                 List, describe and validate"))
        #expect(text.contains("\n  device-motion           Print a recording's"))
        #expect(text.contains("See 'motion-host help <subcommand>' for detailed help."))
    }

    @Test(arguments: [["run", "--help"], ["run", "-h"], ["help", "run"], ["run", "scene.json", "--trace", "-h"]])
    func runHelpShowsArgumentsAndOptions(arguments: [String]) throws {
        let result = try MotionHost.run(arguments)
        #expect(result.status == 0)
        #expect(result.standardError.isEmpty)
        let text = result.standardOutput
        #expect(text.hasPrefix("OVERVIEW: Run a scene on a simulated clock and write its timeline.\n"))
        #expect(text.contains("USAGE: motion-host run <scene> [--plugin-path <dir> ...] [--config <file>]"))
        #expect(text.contains("\nARGUMENTS:\n  <scene>                 The scene file (JSON, sceneVersion 1).\n"))
        #expect(text.contains("\n  --plot <file.svg>       Also draw each animated property"))
        #expect(text.contains("(values: jsonl, csv; default: jsonl)"))
        #expect(text.contains("\n  -o, --output <file>     Write the timeline to this file"))
        #expect(!text.contains("--version"))
    }

    @Test(arguments: [
        (["plugins", "--help"], "USAGE: motion-host plugins <subcommand>"),
        (["plugins", "list", "--help"], "USAGE: motion-host plugins list [--plugin-path <dir> ...] [--config <file>]"),
        (["plugins", "describe", "-h"], "USAGE: motion-host plugins describe <plan-type>"),
        (["plugins", "validate", "--help"], "USAGE: motion-host plugins validate <path> [--config <file>] [--timeout <s>]"),
        (["help", "plugins", "validate"], "USAGE: motion-host plugins validate <path> [--config <file>] [--timeout <s>]"),
        (["device-motion", "--help"], "USAGE: motion-host device-motion <recording> [--reference-frame <frame>]"),
    ])
    func everySubcommandHasHelp(arguments: [String], usage: String) throws {
        let result = try MotionHost.run(arguments)
        #expect(result.status == 0)
        #expect(result.standardOutput.contains(usage))
        #expect(result.standardOutput.contains("  -h, --help              Show help information."))
    }

    @Test func groupWithoutSubcommandPrintsItsHelp() throws {
        let result = try MotionHost.run(["plugins"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("SUBCOMMANDS:\n  list "))
        #expect(result.standardOutput.contains("See 'motion-host help plugins <subcommand>' for detailed help."))
    }

    @Test func versionGoesToStandardOutputWithStatusZero() throws {
        let result = try MotionHost.run(["--version"])
        #expect(result.status == 0)
        #expect(result.standardOutput == "0.1.0\n")
        #expect(result.standardError.isEmpty)
    }
}

@Suite("Usage errors")
struct UsageErrorTests {
    @Test(arguments: [
        (["run", "basic.json", "--plto", "x.svg"], "error: Unknown option '--plto'. Did you mean '--plot'?"),
        (["run", "basic.json", "--trac"], "error: Unknown option '--trac'. Did you mean '--trace'?"),
        (["run", "basic.json", "--zzzzzz"], "error: Unknown option '--zzzzzz'"),
        (["rn", "basic.json"], "error: Unknown subcommand 'rn'. Did you mean 'run'?"),
        (["plugins", "lst"], "error: Unknown subcommand 'lst'. Did you mean 'list'?"),
        (["run"], "error: Missing expected argument '<scene>'"),
        (["run", "basic.json", "extra.json"], "error: Unexpected argument 'extra.json'"),
        (["run", "basic.json", "--output"], "error: Missing value for '--output <file>'"),
        (
            ["run", "basic.json", "--format", "jsnl"],
            "error: The value 'jsnl' is invalid for '--format <format>'. Did you mean 'jsonl'?"
        ),
        (
            ["run", "basic.json", "--fps", "fast"],
            "error: The value 'fast' is invalid for '--fps <n>': expected a number > 0 and ≤ 1000"
        ),
        (
            ["run", "basic.json", "--fps", "-5"],
            "error: The value '-5' is invalid for '--fps <n>': expected a number > 0 and ≤ 1000"
        ),
        (
            ["run", "basic.json", "--duration", "soon"],
            "error: The value 'soon' is invalid for '--duration <s>': expected seconds in 0...86400 or untilIdle"
        ),
        (
            ["run", "basic.json", "--format", "csv", "--trace"],
            "error: '--trace' writes trace lines, which only the jsonl format has"
        ),
        (["run", "basic.json", "--trace=yes"], "error: The flag '--trace' does not take a value"),
    ])
    func usageErrorsGoToStandardErrorWithStatus64(arguments: [String], message: String) throws {
        let result = try MotionHost.run(arguments)
        #expect(result.status == 64)
        #expect(result.standardOutput.isEmpty)
        #expect(result.errorLines.first?.hasPrefix(message) == true, "\(result.standardError)")
        #expect(result.errorLines.contains { $0.hasPrefix("Usage: motion-host") })
        #expect(result.errorLines.last?.hasSuffix("--help' for more information.") == true)
    }

    @Test func optionValuesMayFollowAnEqualsSign() throws {
        let result = try MotionHost.runScene(["basic.json", "--format=csv", "--fps=20"])
        #expect(result.status == 0)
        #expect(result.outputLines.first == "time,frame,target,property,x,y,z,w")
        #expect(result.outputLines.contains("0.25,5,card,position,1,2,,"))
    }
}
