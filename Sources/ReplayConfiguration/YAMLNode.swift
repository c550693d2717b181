import CYAML

/// A parsed YAML node with its position (1-based line and column) in the source file.
indirect enum YAMLNode: Sendable {
    /// A scalar; `plain` is false for quoted and block scalars.
    case scalar(String, plain: Bool, Mark)
    /// A mapping, members in document order.
    case mapping([(key: YAMLNode, value: YAMLNode)], Mark)
    /// A sequence.
    case sequence([YAMLNode], Mark)

    /// A 1-based source position.
    struct Mark: Sendable, Equatable {
        var line: Int
        var column: Int
    }

    /// Where the node starts.
    var mark: Mark {
        switch self {
        case .scalar(_, _, let m), .mapping(_, let m), .sequence(_, let m): return m
        }
    }

    /// The scalar's text, if the node is a scalar.
    var scalarText: String? {
        if case .scalar(let s, _, _) = self { return s }
        return nil
    }

    /// A short name of the node's kind for error messages.
    var kindName: String {
        switch self {
        case .scalar: return "a scalar"
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        }
    }
}

/// Parses YAML text with libyaml into ``YAMLNode`` values.
enum YAMLReader {
    /// Parses the first document of `text`. Returns nil for an empty document.
    /// Throws ``ConfigError`` with libyaml's position on a syntax error.
    static func parse(_ text: String, file: String) throws(ConfigError) -> YAMLNode? {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            throw ConfigError(file: file, line: 0, column: 0, message: "cannot initialize the YAML parser")
        }
        defer { yaml_parser_delete(&parser) }
        let bytes = Array(text.utf8)
        var document = yaml_document_t()
        let ok: Int32 = bytes.withUnsafeBufferPointer { buf in
            yaml_parser_set_input_string(&parser, buf.baseAddress, buf.count)
            return yaml_parser_load(&parser, &document)
        }
        guard ok == 1 else {
            let problem = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
            let mark = parser.problem_mark
            var message = problem
            if let ctx = parser.context { message = "\(String(cString: ctx)): \(problem)" }
            throw ConfigError(
                file: file, line: Int(mark.line) + 1, column: Int(mark.column) + 1, message: "YAML syntax error: \(message)")
        }
        defer { yaml_document_delete(&document) }
        guard let root = yaml_document_get_root_node(&document) else { return nil }
        return convert(root, in: &document, depth: 0)
    }

    private static func convert(_ node: UnsafeMutablePointer<yaml_node_t>, in doc: inout yaml_document_t, depth: Int) -> YAMLNode {
        let mark = YAMLNode.Mark(line: Int(node.pointee.start_mark.line) + 1, column: Int(node.pointee.start_mark.column) + 1)
        guard depth < 64 else { return .scalar("", plain: false, mark) }
        switch node.pointee.type {
        case YAML_SCALAR_NODE:
            let s = node.pointee.data.scalar
            let text = String(decoding: UnsafeBufferPointer(start: s.value, count: Int(s.length)), as: UTF8.self)
            return .scalar(text, plain: s.style == YAML_PLAIN_SCALAR_STYLE, mark)
        case YAML_SEQUENCE_NODE:
            var items: [YAMLNode] = []
            var p = node.pointee.data.sequence.items.start
            while let cur = p, cur != node.pointee.data.sequence.items.top {
                if let child = yaml_document_get_node(&doc, cur.pointee) {
                    items.append(convert(child, in: &doc, depth: depth + 1))
                }
                p = cur + 1
            }
            return .sequence(items, mark)
        case YAML_MAPPING_NODE:
            var pairs: [(key: YAMLNode, value: YAMLNode)] = []
            var p = node.pointee.data.mapping.pairs.start
            while let cur = p, cur != node.pointee.data.mapping.pairs.top {
                if let k = yaml_document_get_node(&doc, cur.pointee.key),
                    let v = yaml_document_get_node(&doc, cur.pointee.value)
                {
                    pairs.append((convert(k, in: &doc, depth: depth + 1), convert(v, in: &doc, depth: depth + 1)))
                }
                p = cur + 1
            }
            return .mapping(pairs, mark)
        default:
            return .scalar("", plain: true, mark)
        }
    }
}
