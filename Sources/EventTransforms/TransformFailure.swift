import JSONCore

/// Why an event could not be transformed: a stable reason code and a detail that names the step.
package struct TransformFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// A step failed on the event (a jq error, a write through a non-object, ...).
    package static let transformFailed = "transform_failed"
    /// The event is not valid JSON (the pipeline's own code for such lines).
    package static let invalidJSON = "invalid_json"
    /// The event is valid JSON but not an object.
    package static let notAnObject = "not_an_object"
    /// The event is not valid UTF-8.
    package static let invalidUTF8 = "invalid_utf8"

    /// The reason code: ``transformFailed``, or one of the input codes when the event could
    /// not be read at all.
    package var reason: String
    /// What went wrong, such as `step 3 (jq): Cannot index string with string "a"`.
    package var detail: String
    /// The step that failed (from 1); nil when the event could not be read.
    package var step: Int?

    /// Creates a failure.
    package init(reason: String, detail: String, step: Int?) {
        self.reason = reason
        self.detail = detail
        self.step = step
    }

    /// A failure of step `step` (from 1) of kind `kind`.
    static func step(_ step: Int, _ kind: StepKind, _ message: String) -> TransformFailure {
        TransformFailure(reason: transformFailed, detail: "step \(step) (\(kind.rawValue)): \(message)", step: step)
    }

    /// A failure to read the event, with the pipeline's reason codes.
    static func unreadable(_ error: JSONError, _ bytes: UnsafeBufferPointer<UInt8>) -> TransformFailure {
        switch error.kind {
        case .invalidUTF8: return TransformFailure(reason: invalidUTF8, detail: error.description, step: nil)
        case .unexpectedType: return TransformFailure(reason: notAnObject, detail: "the line is valid JSON but not an object", step: nil)
        case .syntax, .tooDeep:
            if String(validating: bytes, as: UTF8.self) == nil {
                return TransformFailure(reason: invalidUTF8, detail: "the line is not valid UTF-8", step: nil)
            }
            return TransformFailure(reason: invalidJSON, detail: error.description, step: nil)
        }
    }

    /// `reason: detail`.
    package var description: String { "\(reason): \(detail)" }
}
