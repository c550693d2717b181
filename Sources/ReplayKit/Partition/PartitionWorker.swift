import Foundation
@_spi(PerLine) import MetaRouterDelivery
import ReplayConfiguration
import SystemIO
import Timestamps

/// One worker of `mr-replay partition`: reads its share of the inputs once, in order, and writes
/// each line to the part of the identity shard that owns it, and what each teaching line teaches
/// (``IdentityTransition``) to the segment's transitions part, for every shard to learn.
///
/// Parts are cut into segments of about ``PartitionOptions/segmentBytes`` of input; each
/// finished segment is published and recorded in the worker's progress, so a worker killed at
/// any moment and run again goes on after its last finished segment. The manifest comes last.
/// A worker whose manifest is there and matches does nothing.
///
/// Runs on a thread of its own: it reads files and waits for the store synchronously.
final class PartitionWorker {
    let config: ReplayConfig
    let options: PartitionOptions
    let store: any PartitionStore
    let plan: PartitionPlan
    let stop: StopSignal
    private var router: ShardRouter
    private var preparer: LinePreparer
    private var sinks: [PartSink] = []
    private var transitions: PartSink?
    private var progress: PartitionProgress
    /// Input bytes read into the open segment.
    private var segmentBytes: UInt64 = 0
    private var counts = PartitionWorkerReport()
    /// What turns a vendor's records into events, and transforms them (nil: lines as they are).
    private let converter: RecordConverter?
    /// The index of the next event of the record being routed (``RecordConverter``), and the
    /// shards it has written an earlier event of that record to, with where that `L` record's
    /// flags are (set to ``PartitionRecord/LineFlags/continues`` when another event follows).
    private var eventIndex = 0
    private var openRecord: [(shard: Int, flagsAt: Int)] = []

    init(config: ReplayConfig, options: PartitionOptions, store: any PartitionStore, plan: PartitionPlan, stop: StopSignal) throws {
        self.config = config
        self.options = options
        self.store = store
        self.plan = plan
        self.stop = stop
        let identity = try IdentityStore(stateDirectory: nil, deviceAnonymousId: plan.deviceAnonymousId)
        defer { identity.close() }
        router = ShardRouter(shard: try Shard(index: 0, count: options.shards), config: config, deviceAnonymousId: plan.deviceAnonymousId)
        preparer = Enricher(config: config, identity: identity).preparer
        preparer.setWindow(options.window)
        converter = try RecordConverter(config.inputs.shaping)
        progress = PartitionProgress(
            settings: plan.settings, inputsFingerprint: plan.inputsFingerprint, shards: options.shards, segments: [], inputs: [],
            nextInput: 0)
    }

    /// Partitions the worker's inputs, or finds them done. Throws ``UsageError`` when the
    /// location holds another partition's manifest or progress.
    func run() throws -> PartitionWorkerReport {
        let manifestName = PartitionLayout.manifest(worker: options.worker, of: options.workers)
        if let bytes = try store.get(manifestName) {
            let manifest = try plan.decodeManifest(bytes, name: manifestName, in: store.location)
            counts.alreadyDone = true
            counts.segments = manifest.segments.count
            return counts
        }
        let progressName = PartitionLayout.progress(worker: options.worker, of: options.workers)
        if let bytes = try store.get(progressName) { progress = try plan.decodeProgress(bytes, name: progressName, in: store.location) }
        counts.resumedSegments = progress.segments.count
        try openSegment()
        while progress.nextInput < plan.workerInputs.count {
            if stop.isRequested { break }
            try partition(inputAt: progress.nextInput)
        }
        try closeSegment()
        if stop.isRequested, progress.nextInput < plan.workerInputs.count {
            counts.stopped = true
            return counts
        }
        let manifest = plan.manifest(progress: progress, options: options, finishedAt: Timestamp.iso8601(Date()))
        try store.put(Array(try PartitionPlan.encoder.encode(manifest)) + [0x0A], as: manifestName)
        counts.segments = progress.segments.count
        return counts
    }

    /// Reads the input at position `position` of the worker's inputs, from where the progress
    /// says, cutting segments as they fill.
    private func partition(inputAt position: Int) throws {
        let input = plan.workerInputs[position]
        let resume = progress.nextLine.map { ResumePoint(offset: progress.nextOffset ?? 0, lineNumber: $0) }
        var lines = progress.nextLine.map { $0 - 1 } ?? 0
        var lastLine = lines, lastEnd = resume?.offset ?? 0
        if progress.inputs.last?.index != input.index {
            progress.inputs.append(
                PartitionManifest.Input(index: input.index, path: input.path, size: input.size, identity: input.identity, lines: 0))
        }
        do {
            let reader = try InputReader(
                source: input.source, resumeAt: resume, maxLineBytes: LineWalker.maxLineBytes(for: config),
                shaping: config.inputs.shaping)
            try reader.forEachLine(converter: converter) { line in
                try route(line, input: input.index)
                guard line.endsLine else { return true }  // a segment holds whole records
                lines = line.lineNumber
                (lastLine, lastEnd) = (line.lineNumber, line.endOffset)
                segmentBytes += UInt64(line.bytes.count + 1)
                guard segmentBytes >= options.segmentBytes || stop.isRequested else { return true }
                progress.inputs[progress.inputs.count - 1].lines = lines
                (progress.nextLine, progress.nextOffset) = (line.lineNumber + 1, line.endOffset)
                try cutSegment()
                return !stop.isRequested
            }
        } catch let error as InputError {
            // The rest of the input cannot be read: shard 0 dead-letters it, as a run would.
            let sink = sinks[0]
            sink.begin(input: input.index)
            PartitionRecord.appendReadError(firstLineNotRead: lastLine + 1, offset: lastEnd, message: error.message, to: &sink.records)
            sink.count += 1
            counts.readErrors += 1
        }
        if stop.isRequested, progress.nextLine != nil { return }
        progress.inputs[progress.inputs.count - 1].lines = lines
        counts.inputs += 1
        progress.nextInput = position + 1
        (progress.nextLine, progress.nextOffset) = (nil, nil)
    }

    /// Writes one line (or one event of a vendor's record) to its shard's part, and what it
    /// teaches to the transitions part. A refused record, or one settled without an event, is
    /// shard 0's, as a run's unreadable lines are.
    @inline(__always)
    private func route(_ line: InputLine, input: Int) throws {
        let (shard, teaches) = line.refusal == nil && line.skip == nil ? router.owner(line.bytes) : (0, false)
        let sink = sinks[shard]
        sink.begin(input: input)
        if let earlier = openRecord.firstIndex(where: { $0.shard == shard }) {
            sink.records[openRecord[earlier].flagsAt] |= PartitionRecord.LineFlags.continues.rawValue
            openRecord.remove(at: earlier)
        }
        let flagsAt = PartitionRecord.appendLine(line, eventIndex: eventIndex, to: &sink.records)
        sink.count += 1
        if teaches, !line.truncated, let transitions, preparer.prepareToLearn(line.bytes, identity: nil) {
            transitions.begin(input: input)
            let taught = IdentityTransition.append(
                preparer.event, line: line.bytes, lineNumber: line.lineNumber, eventIndex: eventIndex, to: &transitions.records)
            if taught {
                transitions.count += 1
                counts.transitions += 1
                try transitions.flushIfFull()
            }
        }
        guard line.endsLine else {
            eventIndex += 1
            openRecord.append((shard, flagsAt))
            return
        }
        counts.lines += 1
        // A record's `L` records stay uncompressed until its last, whose flags may still change.
        for (other, _) in openRecord { try sinks[other].flushIfFull() }
        try sink.flushIfFull()
        (eventIndex, openRecord) = (0, [])
    }

    /// Starts a segment: one part per shard and the transitions part.
    private func openSegment() throws {
        let segment = progress.segments.count
        do {
            try FileManager.default.createDirectory(atPath: store.scratchDirectory, withIntermediateDirectories: true)
        } catch {
            throw PartitionStoreError("cannot create the scratch directory \(store.scratchDirectory): \(error.localizedDescription)")
        }
        sinks = try (0..<options.shards).map {
            try PartSink(
                name: PartitionLayout.part(worker: options.worker, segment: segment, shard: $0, of: options.shards),
                directory: store.scratchDirectory)
        }
        transitions = try PartSink(
            name: PartitionLayout.transitions(worker: options.worker, segment: segment), directory: store.scratchDirectory)
        segmentBytes = 0
    }

    /// Finishes and publishes the open segment, records it in the progress, and opens the next.
    private func cutSegment() throws {
        try closeSegment()
        try openSegment()
    }

    /// Finishes and publishes the open segment (nothing when it holds no line), then records it.
    private func closeSegment() throws {
        guard let transitions else { return }
        defer { self.transitions = nil }
        guard sinks.contains(where: { $0.count > 0 }) || transitions.count > 0 else {
            sinks.forEach { $0.discard() }
            transitions.discard()
            return
        }
        var parts: [PartitionManifest.Part] = []
        for sink in sinks {
            parts.append(try sink.finish())
            try store.publish(file: sink.file, as: sink.name)
        }
        let transitionsPart = try transitions.finish()
        try store.publish(file: transitions.file, as: transitions.name)
        progress.segments.append(PartitionManifest.Segment(index: progress.segments.count, parts: parts, transitions: transitionsPart))
        counts.bytesWritten += parts.reduce(transitionsPart.bytes) { $0 + $1.bytes }
        let name = PartitionLayout.progress(worker: options.worker, of: options.workers)
        try store.put(Array(try PartitionPlan.encoder.encode(progress)), as: name)
    }
}

/// What one worker did.
package struct PartitionWorkerReport: Sendable, Equatable {
    /// The worker's manifest was there already: nothing was read.
    package var alreadyDone = false
    /// A stop request ended it before its inputs did (its progress is kept).
    package var stopped = false
    /// Segments an earlier run of the worker had finished.
    package var resumedSegments = 0
    package var segments = 0
    package var inputs = 0
    package var lines = 0
    package var transitions = 0
    package var readErrors = 0
    package var bytesWritten: UInt64 = 0
}
