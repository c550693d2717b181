import ArgumentParser
import CommandLineSupport
import Foundation
import ReplayKit
import SystemIO

/// `mr-replay run --dry-run`: everything except the network.
enum DryRun {
    static func run(
        config: ReplayConfig, sources: [InputSource], output: String?, window: TimeWindow?, limit: Int?, summary: Bool = false
    ) throws {
        let file: AppendOnlyFile
        do {
            file =
                try output.map { try AppendOnlyFile(path: $0, start: .empty) }
                ?? AppendOnlyFile(descriptor: 1, name: "standard output")
        } catch {
            throw CommandFailure.usage("--output: \(error)")
        }
        defer { try? file.close() }
        let stats: EnrichStats
        do {
            stats = try DryRunner.run(
                config: config, inputs: sources, output: file, window: window, limit: limit,
                onWarning: { FileHandle.standardError.write(Data("mr-replay: warning: \($0)\n".utf8)) },
                onSummary: summary ? { FileHandle.standardError.write(Data($0.text.utf8)) } : nil)
        } catch {
            // Nothing is ever sent by a dry run; 1 means dead letters. An S3 input that cannot be
            // read exits as InputFailure says (3 refused, 75 retries ran out).
            throw CommonOptions.failure(error)
        }
        FileHandle.standardError.write(
            Data(
                "mr-replay: dry run: \(config.inputs.shaping.converts ? "" : "\(CountText.of(stats.lines)) lines, ")\(CountText.of(stats.events)) events, \(CountText.of(stats.invalid)) dead-lettered, \(CountText.of(stats.blank)) blank\(skippedText(stats)); write key \(config.maskedWriteKey)\n"
                    .utf8))
        if stats.invalid > 0 {
            FileHandle.standardError.write(
                Data(
                    "mr-replay: dead letters: \(DryRunner.deadLetterPath(stateDirectory: config.stateDir))\n".utf8))
            throw ExitCode(ExitStatus.deadLettered)  // like a real run: some lines would be dead-lettered
        }
    }

    /// `, 3 expired, 1 consent_dropped` for the events a rule settled, or nothing.
    static func skippedText(_ stats: EnrichStats) -> String {
        stats.skipped.keys.sorted().map { ", \(CountText.of(stats.skipped[$0]!)) \($0)" }.joined()
    }
}
