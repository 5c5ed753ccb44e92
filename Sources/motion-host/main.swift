import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.count == 2, arguments[0] == validateChildArgument {
    exit(runValidateChild(manifest: arguments[1]))
}
exit(CommandLineTool.main(root: CommandTree.root, version: CommandTree.version, arguments: arguments))
