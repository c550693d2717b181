import Foundation

/// One batch that was not delivered cleanly on its first attempt: a line of
/// `<state_dir>/batches.ndjson`, and an entry of the report's `batches.problems`.
package struct BatchProblem: Codable, Sendable, Equatable {
    /// The lines of one input that the batch's events came from.
    package struct Lines: Codable, Sendable, Equatable {
        /// The input's path.
        package var input: String
        /// Inclusive `[first, last]` line ranges, in order.
        package var ranges: [[Int]]

        /// Lines of `input`.
        package init(input: String, ranges: [[Int]]) {
            self.input = input
            self.ranges = ranges
        }
    }

    /// One HTTP attempt and what followed it.
    package struct Attempt: Codable, Sendable, Equatable {
        /// When the request was sent (ISO 8601, UTC).
        package var at: String
        /// The response status, when there was a response.
        package var status: Int?
        /// The network error, when there was none (`reset`, `timeout`, ...).
        package var error: String?
        /// The `Retry-After` the destination asked for, in milliseconds.
        package var retryAfterMs: Int?
        /// How long the engine waited before the next attempt, in milliseconds.
        package var waitMs: Int?
        /// The circuit breaker's state after the attempt: `closed`, `open` or `half_open`.
        package var breaker: String

        /// An attempt.
        package init(at: String, status: Int? = nil, error: String? = nil, retryAfterMs: Int? = nil, waitMs: Int? = nil, breaker: String) {
            self.at = at
            self.status = status
            self.error = error
            self.retryAfterMs = retryAfterMs
            self.waitMs = waitMs
            self.breaker = breaker
        }

        enum CodingKeys: String, CodingKey {
            case at, status, error, breaker
            case retryAfterMs = "retry_after_ms"
            case waitMs = "wait_ms"
        }
    }

    /// How the batch ended.
    package struct Outcome: Codable, Sendable, Equatable {
        /// `delivered`, `split`, `gave_up` or `pending` (the run stopped first).
        package var result: String
        /// The child batch ids of a split.
        package var children: [Int]?
        /// Why its events were given up (the dead-letter reason).
        package var reason: String?
        /// How many events were given up; they are in the dead-letter file under the same inputs
        /// and lines.
        package var events: Int?
        /// The dead-letter file the given-up events went to.
        package var deadLetterFile: String?

        /// An outcome.
        package init(result: String, children: [Int]? = nil, reason: String? = nil, events: Int? = nil, deadLetterFile: String? = nil) {
            self.result = result
            self.children = children
            self.reason = reason
            self.events = events
            self.deadLetterFile = deadLetterFile
        }

        enum CodingKeys: String, CodingKey {
            case result, children, reason, events
            case deadLetterFile = "dead_letter_file"
        }
    }

    /// The run the batch belongs to (its start time): the journal keeps the batches of every run.
    package var run: String
    /// Unique within the run; split children get new ids and name their ``parent``.
    package var batch: Int
    /// The batch this one was split from.
    package var parent: Int?
    /// The engine lane that sent it.
    package var lane: Int
    /// Events in the batch.
    package var events: Int
    /// Bytes of the request body.
    package var bytes: Int
    /// Where its events came from.
    package var lines: [Lines]
    /// Every attempt, in order.
    package var attempts: [Attempt]
    /// How it ended.
    package var outcome: Outcome

    /// A problem batch.
    package init(
        run: String, batch: Int, parent: Int?, lane: Int, events: Int, bytes: Int, lines: [Lines], attempts: [Attempt],
        outcome: Outcome
    ) {
        self.run = run
        self.batch = batch
        self.parent = parent
        self.lane = lane
        self.events = events
        self.bytes = bytes
        self.lines = lines
        self.attempts = attempts
        self.outcome = outcome
    }
}

extension BatchProblem.Lines {
    /// Groups line numbers of one input into inclusive ranges of consecutive lines.
    package static func ranges(of lineNumbers: [Int]) -> [[Int]] {
        var ranges: [[Int]] = []
        for line in lineNumbers.sorted() {
            if let last = ranges.last, last[1] + 1 >= line {
                ranges[ranges.count - 1][1] = max(last[1], line)
            } else {
                ranges.append([line, line])
            }
        }
        return ranges
    }
}
