import Foundation

let arguments = CommandLine.arguments.dropFirst()
guard let name = arguments.first, let command = Command(rawValue: name) else {
    let asked = arguments.first.map { ["-h", "--help", "help"].contains($0) } ?? false
    report(asked ? "\n" + Command.usage : "unknown or missing command\n" + Command.usage)
    exit(asked ? 0 : 64)
}

command.run(Environment(), arguments: Array(arguments.dropFirst()))
