#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// CPU time used so far, as the kernel counts it (`getrusage`): by the whole process, or by the
/// calling thread alone.
package struct CPUUsage: Sendable, Equatable {
    /// Seconds spent running the program's own code.
    package var userSeconds: Double
    /// Seconds the kernel spent on its behalf (reads, writes, sockets, page faults).
    package var systemSeconds: Double
    /// The most memory the process has held resident at once, in bytes (0 for a thread: the
    /// kernel keeps no per-thread peak).
    package var peakResidentBytes: UInt64

    /// User plus system seconds.
    package var totalSeconds: Double { userSeconds + systemSeconds }

    /// Figures as given (tests; ``process()`` and ``currentThread()`` read the kernel's).
    package init(userSeconds: Double, systemSeconds: Double, peakResidentBytes: UInt64 = 0) {
        self.userSeconds = userSeconds
        self.systemSeconds = systemSeconds
        self.peakResidentBytes = peakResidentBytes
    }

    /// What the whole process used (every thread, living or ended), and its peak resident set.
    package static func process() -> CPUUsage {
        #if os(Linux)
            return read(who: __rusage_who_t(RUSAGE_SELF.rawValue), peak: true)
        #else
            return read(who: RUSAGE_SELF, peak: true)
        #endif
    }

    /// What the calling thread used since it started (Linux; the process's figures elsewhere).
    package static func currentThread() -> CPUUsage {
        #if os(Linux)
            // RUSAGE_THREAD (1) is a GNU name the Glibc module does not show.
            return read(who: __rusage_who_t(1), peak: false)
        #else
            return read(who: RUSAGE_SELF, peak: false)
        #endif
    }

    private static func read(who: Int32, peak: Bool) -> CPUUsage {
        var usage = rusage()
        guard getrusage(who, &usage) == 0 else { return CPUUsage(userSeconds: 0, systemSeconds: 0) }
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        #if os(Linux)
            let peakBytes = UInt64(max(usage.ru_maxrss, 0)) * 1024  // Linux counts kilobytes
        #else
            let peakBytes = UInt64(max(usage.ru_maxrss, 0))  // macOS counts bytes
        #endif
        return CPUUsage(
            userSeconds: seconds(usage.ru_utime), systemSeconds: seconds(usage.ru_stime), peakResidentBytes: peak ? peakBytes : 0)
    }
}
