import Foundation
import SystemIO

extension RunReport {
    /// What the run cost the machine: CPU time and peak memory, as the kernel counts them.
    ///
    /// A run reads and prepares its lines on one thread and delivers them on another (the HTTP
    /// transport's event loop), so the two threads' CPU says which half bounds it: a run whose
    /// reading thread is busy the whole time is bound by preparing, one whose delivery thread
    /// is busy by sending. The process's figure also holds what neither thread did (start-up,
    /// progress, timers, the embedded collector).
    public struct Resources: Codable, Sendable, Equatable {
        /// CPU seconds of the whole process, user plus system.
        public var cpuSeconds: Double = 0
        /// The process's user CPU seconds (its own code).
        public var cpuUserSeconds: Double = 0
        /// The process's system CPU seconds (the kernel on its behalf: reads, sockets, faults).
        public var cpuSystemSeconds: Double = 0
        /// CPU seconds of the thread that read, prepared and recorded the lines; nil when the
        /// run did not measure it.
        public var readingThreadCPUSeconds: Double?
        /// CPU seconds of the thread that delivered them: the transport's event loop, since it
        /// started (reads from S3 and the embedded collector may run on it too); nil when the run
        /// did not send over the HTTP transport.
        public var deliveryThreadCPUSeconds: Double?
        /// The most memory the process held resident at once, in bytes.
        public var peakResidentBytes: UInt64 = 0

        /// Empty figures.
        public init() {}

        enum CodingKeys: String, CodingKey {
            case cpuSeconds = "cpu_seconds"
            case cpuUserSeconds = "cpu_user_seconds"
            case cpuSystemSeconds = "cpu_system_seconds"
            case readingThreadCPUSeconds = "reading_thread_cpu_seconds"
            case deliveryThreadCPUSeconds = "delivery_thread_cpu_seconds"
            case peakResidentBytes = "peak_resident_bytes"
        }

        /// The process's figures now, with the two threads' when they were measured.
        package static func measured(readingThread: CPUUsage?, deliveryThread: CPUUsage?) -> Resources {
            let process = CPUUsage.process()
            var r = Resources()
            r.cpuUserSeconds = Self.rounded(process.userSeconds)
            r.cpuSystemSeconds = Self.rounded(process.systemSeconds)
            r.cpuSeconds = Self.rounded(process.totalSeconds)
            r.readingThreadCPUSeconds = readingThread.map { Self.rounded($0.totalSeconds) }
            r.deliveryThreadCPUSeconds = deliveryThread.map { Self.rounded($0.totalSeconds) }
            r.peakResidentBytes = process.peakResidentBytes
            return r
        }

        /// `seconds` to the millisecond (the kernel counts microseconds; more is noise).
        private static func rounded(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }

        /// One line for the summary: `CPU 3.21 s (reading 2.10 s, delivery 1.02 s), peak memory 71.0 MB`.
        package var summary: String {
            var threads: [String] = []
            if let reading = readingThreadCPUSeconds { threads.append(String(format: "reading %.2f s", reading)) }
            if let delivery = deliveryThreadCPUSeconds { threads.append(String(format: "delivery %.2f s", delivery)) }
            let split = threads.isEmpty ? "" : " (\(threads.joined(separator: ", ")))"
            return String(format: "CPU %.2f s", cpuSeconds) + split
                + String(format: ", peak memory %.1f MB", Double(peakResidentBytes) / 1_000_000)
        }
    }
}
