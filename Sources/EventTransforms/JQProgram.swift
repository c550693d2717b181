import CJQ

/// A compiled jq expression and the jq state that runs it.
///
/// Not `Sendable`, on purpose: a `jq_state` is not thread-safe (it holds the running program's
/// stack), so each ``EventTransformer`` compiles its own, on the thread that uses it. libjq
/// keeps no shared mutable state between separate `jq_state`s (its allocator's out-of-memory
/// handler and its number formatting are per thread or per call), so one program per thread
/// is safe.
final class JQProgram {
    /// The state; compiled, and owned by this object until `deinit` tears it down.
    private let state: OpaquePointer
    /// Where the error callback puts compile messages. Kept alive by this object for as long
    /// as `state`, which holds an unretained pointer to it.
    private let messages: JQMessages
    /// The expression, as configured.
    let expression: String

    /// Compiles `expression`, the jq step at position `step` (for the error).
    init(compiling expression: String, step: Int) throws(TransformConfigError) {
        guard let state = jq_init() else {
            throw TransformConfigError("libjq could not start (out of memory)", step: step, kind: "jq", key: "jq")
        }
        self.state = state
        self.messages = JQMessages()
        self.expression = expression
        // jq 1.6's `jq_init` leaves the input, debug and out-of-memory callbacks unset (the jq
        // command sets them itself): set them before anything can call them. No input
        // callback: a step sees one event, so `inputs` is empty and `input` fails (jq 1.6 says
        // "break"). No debug callback: `debug` passes its input through silently. The
        // out-of-memory handler does nothing, so libjq reports the exhaustion and aborts, as
        // it does by default.
        jq_set_input_cb(state, nil, nil)
        jq_set_debug_cb(state, nil, nil)
        jq_set_nomem_handler(state, { _ in }, nil)
        // jq 1.6 resolves `import` and `include` with attributes that the jq command sets and
        // libjq asserts on when they are missing. No library directories, and origins in a
        // directory that does not exist: a module is found only in an absolute directory that
        // an import's own `search` names. `jq_set_attr` consumes its key and value, which are
        // new values made here.
        jq_set_attr(state, jv_string("JQ_LIBRARY_PATH"), jv_array())
        jq_set_attr(state, jv_string("JQ_ORIGIN"), jv_string("/nonexistent"))
        jq_set_attr(state, jv_string("PROGRAM_ORIGIN"), jv_string("/nonexistent"))
        // The callback gets `messages` back as an unretained pointer: it stays valid because
        // `messages` lives as long as this object, and `deinit` tears `state` down first.
        jq_set_error_cb(state, { context, message in JQMessages.collect(context, message) }, Unmanaged.passUnretained(messages).toOpaque())
        // `jq_compile` reads the C string during the call only.
        let compiled = expression.withCString { jq_compile(state, $0) } != 0
        guard compiled else {
            // Throwing here still runs `deinit` (every stored property is set), which frees `state`.
            throw TransformConfigError(
                "the expression does not compile: \(messages.compileErrors)", step: step, kind: "jq", key: "jq")
        }
        messages.lines.removeAll()
    }

    deinit {
        // `jq_teardown` frees the state and everything it holds, and clears the pointer.
        var doomed: OpaquePointer? = state
        jq_teardown(&doomed)
    }

    /// Runs the expression on `input[range]` (the bytes of one JSON object).
    ///
    /// No output drops the event; one object replaces it; anything else is a failure.
    func run(_ input: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) throws(StepFailure) -> JQResult {
        guard range.count <= Int(Int32.max), let base = input.baseAddress else {
            throw StepFailure("the event is too large for jq")
        }
        // `jv_parse_sized` reads exactly `range.count` bytes during the call and keeps no
        // pointer to them. We own the value it returns.
        let original = UnsafeRawPointer(base + range.lowerBound).withMemoryRebound(to: CChar.self, capacity: range.count) {
            jv_parse_sized($0, Int32(range.count))
        }
        guard jv_get_kind(original) == JV_KIND_OBJECT else {
            throw StepFailure("jq could not read the event: \(JQValues.message(consuming: original))")
        }
        defer { jv_free(original) }  // Our reference, kept for the comparison below.
        // `jq_start` consumes its input: it gets a new reference, and `original` stays ours.
        jq_start(state, jv_copy(original), 0)
        let output = try onlyOutput()
        guard let output else { return .dropped }
        defer { jv_free(output) }  // We own what `jq_next` returns.
        guard jv_get_kind(output) == JV_KIND_OBJECT else {
            throw StepFailure("the expression produced \(JQValues.kindName(jv_get_kind(output))), not an object")
        }
        // `jv_equal` consumes both arguments: it gets new references.
        if jv_equal(jv_copy(original), jv_copy(output)) != 0 { return .unchanged }
        var merged: [UInt8] = []
        merged.reserveCapacity(range.count + 64)
        JQMerge.appendObject(output, original: original, source: input, range: range, into: &merged)
        return .replaced(merged)
    }

    /// The running program's one output; nil when it produced none. Throws when it produced
    /// more than one, raised an error, or halted.
    private func onlyOutput() throws(StepFailure) -> jv? {
        // We own each value `jq_next` returns.
        let first = jq_next(state)
        guard jv_get_kind(first) != JV_KIND_INVALID else {
            try finish(first)
            return nil
        }
        let second = jq_next(state)
        guard jv_get_kind(second) == JV_KIND_INVALID else {
            jv_free(first)
            jv_free(second)
            throw StepFailure("the expression produced more than one output; a jq step must produce one object, or none to drop the event")
        }
        do throws(StepFailure) {
            try finish(second)
        } catch {
            jv_free(first)
            throw error
        }
        return first
    }

    /// Checks how the outputs ended, consuming `end`, the invalid value `jq_next` returned:
    /// throws for an error (an invalid value with a message) or a halt.
    private func finish(_ end: jv) throws(StepFailure) {
        // `jv_invalid_has_msg` consumes its argument: it gets a new reference.
        if jv_invalid_has_msg(jv_copy(end)) != 0 {
            throw StepFailure(Self.shortened(JQValues.message(consuming: end)))
        }
        jv_free(end)
        guard jq_halted(state) != 0 else { return }
        // `jq_get_error_message` returns a new reference (an invalid one after a plain `halt`).
        let message = jq_get_error_message(state)
        var detail = ""
        if jv_get_kind(message) == JV_KIND_INVALID {
            jv_free(message)
        } else {
            detail = ": " + Self.shortened(JQValues.message(consuming: message))
        }
        throw StepFailure("the expression called halt or halt_error, which a jq step does not support\(detail)")
    }

    /// `message` cut to at most 300 characters (an error's value can be a whole event).
    private static func shortened(_ message: String) -> String {
        message.count <= 300 ? message : message.prefix(299) + "…"
    }
}
