import Chirp
import Foundation
import Postgres

/// `chirp-bench-scripts DIR --seed N --deep MICROS UUID [--search-estimate N]`: writes the
/// pgbench ceiling scripts (`NAME.sql`, and `NAME.args` with one `-D` definition a line) that
/// `bench/run` measures each endpoint against, and `viewer_sessions.sql`, run once before them
/// to start the viewers' sessions. `--search-estimate` is the planner's estimate of
/// the searched word's matches, which the service passes after its first search of the word.
let usage = "usage: chirp-bench-scripts DIR --seed N --deep MICROSECONDS UUID [--search-estimate N]"
let arguments = Array(CommandLine.arguments.dropFirst())
guard let directory = arguments.first,
      let seedIndex = arguments.firstIndex(of: "--seed"), seedIndex + 1 < arguments.count,
      let seed = Int(arguments[seedIndex + 1]),
      let deepIndex = arguments.firstIndex(of: "--deep"), deepIndex + 2 < arguments.count,
      let micros = Int64(arguments[deepIndex + 1]), let id = PostgresUUID(canonical: arguments[deepIndex + 2])
else {
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    exit(64)
}
var searchEstimate: Int?
if let index = arguments.firstIndex(of: "--search-estimate") {
    guard index + 1 < arguments.count, let value = Int(arguments[index + 1]) else {
        FileHandle.standardError.write(Data((usage + "\n").utf8))
        exit(64)
    }
    searchEstimate = value
}

do {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let deep = KeysetPosition(timestamp: PostgresTimestamp(microsecondsSinceEpoch: micros), id: id)
    let scripts = try CeilingScripts.all(seed: seed, deepPosition: deep, searchEstimate: searchEstimate)
    for script in scripts + [CeilingScripts.viewerSessions(seed: seed)] {
        let base = URL(fileURLWithPath: directory).appendingPathComponent(script.name)
        try script.text.write(to: base.appendingPathExtension("sql"), atomically: true, encoding: .utf8)
        let args = script.definitions.map { "-D\n\($0.0)=\($0.1)" }.joined(separator: "\n")
        try args.write(to: base.appendingPathExtension("args"), atomically: true, encoding: .utf8)
    }
    FileHandle.standardError.write(Data("chirp-bench-scripts: wrote \(scripts.count) ceiling scripts to \(directory)\n".utf8))
} catch {
    FileHandle.standardError.write(Data("chirp-bench-scripts: \(error)\n".utf8))
    exit(1)
}
