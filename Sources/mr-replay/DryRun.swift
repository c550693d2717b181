import ArgumentParser
import Foundation
import ReplayKit

/// `mr-replay run --dry-run`: everything except the network.
enum DryRun {
    static func run(config: ReplayConfig, sources: [InputSource], output: String?) throws {
        var fd: Int32 = 1
        if let output {
            fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                FileHandle.standardError.write(Data("mr-replay: \(output): cannot open for writing\n".utf8))
                throw ExitCode(2)
            }
        }
        defer { if fd != 1 { close(fd) } }
        do {
            let stats = try DryRunner.run(config: config, inputs: sources, outputFD: fd)
            FileHandle.standardError.write(Data(
                "mr-replay: dry run: \(stats.lines) lines, \(stats.events) events, \(stats.invalid) dead-lettered, \(stats.blank) blank; write key \(config.maskedWriteKey)\n".utf8))
            if stats.invalid > 0 {
                FileHandle.standardError.write(Data(
                    "mr-replay: dead letters: \(DryRunner.deadLetterPath(stateDirectory: config.stateDir))\n".utf8))
            }
        } catch {
            FileHandle.standardError.write(Data("mr-replay: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
