import Foundation

exit(
    CommandLineTool.main(
        root: CommandTree.root, version: CommandTree.version, arguments: Array(CommandLine.arguments.dropFirst())))
